import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { hasQpdf } from '../pdf/independent-checks.ts';
import { hasPoppler } from '../pdf/pdf-helpers.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

describe('otpMethod sms without SMS_URL', () => {
  it('spools each message as $DATA_DIR/sms/<id>.json {to, body, createdAt}', async () => {
    const email = address('spool');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Sol', email, phone: '+33 6 12 34 56 78' }],
      body: { otpMethod: 'sms' },
    });
    const token = latestToken(t, email);
    const res = await t.request('POST', `/api/v1/signing/${token}/otp`, { key: null });
    expect(res.body.data).toMatchObject({ method: 'sms', sentTo: '+33 ••• ••• 5678' });
    await t.settle();
    const dir = path.join(t.database.dataDir, 'sms');
    const files = await fs.readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^sms_[0-9a-z]+\.json$/);
    const message = JSON.parse(await fs.readFile(path.join(dir, files[0]), 'utf8'));
    expect(Object.keys(message).sort()).toEqual(['body', 'createdAt', 'to']);
    expect(message.to).toBe('+33612345678');
    expect(Number.isNaN(Date.parse(message.createdAt))).toBe(false);
    const code = /\b(\d{6})\b/.exec(message.body)![1];
    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: {}, signature: typed(), otp: code },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    if (!hasPoppler || !hasQpdf) return;
    // The certificate page names the method and the masked phone, and what it proves.
    await t.settle();
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(download.statusCode).toBe(200);
    const file = path.join(t.database.dataDir, 'sms-signed.pdf');
    await fs.writeFile(file, download.rawPayload);
    const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).stdout;
    const text = run('pdftotext', ['-f', '3', file, '-']).replace(/\s+/g, ' ');
    expect(text).toContain(
      'one-time code sent by SMS to +33 ••• ••• 5678 (proof of access to that phone, not of who the person is)',
    );
    const evidence = JSON.parse(run('qpdf', ['--show-attachment=signet-evidence.json', file]));
    expect(evidence.signers[0]).toMatchObject({
      authentication: ['email_link', 'sms_otp'],
      otpPhone: '+33 ••• ••• 5678',
    });
  });

  it('texts in the signer’s language', async () => {
    const email = address('de');
    await sentDocument(t, {
      signers: [{ name: 'Uwe', email, phone: '+49 30 901820', locale: 'de', otpMethod: 'sms' }],
    });
    await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/otp`, { key: null });
    await t.settle();
    const dir = path.join(t.database.dataDir, 'sms');
    const all = await Promise.all(
      (await fs.readdir(dir)).map(async (f) =>
        JSON.parse(await fs.readFile(path.join(dir, f), 'utf8')),
      ),
    );
    expect(all.find((m) => m.to === '+4930901820')?.body).toMatch(/Code zum Unterschreiben/);
  });
});

describe('SMS_URL', () => {
  const env = (vars: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp/x', ...vars });
  it('parses the gateway, Twilio and spool forms', () => {
    expect(env({}).sms).toEqual({ driver: 'spool', spoolDir: '/tmp/x/sms' });
    expect(
      env({ SMS_URL: 'https://sms.example.com/send', SMS_SECRET: 'a'.repeat(32) }).sms,
    ).toMatchObject({ driver: 'gateway', url: 'https://sms.example.com/send' });
    expect(env({ SMS_URL: 'twilio://AC1:tok@api.twilio.com?from=%2B15005550006' }).sms).toEqual({
      driver: 'twilio',
      baseUrl: 'https://api.twilio.com',
      accountSid: 'AC1',
      authToken: 'tok',
      from: '+15005550006',
    });
  });
  it('refuses plain HTTP in production, a gateway without SMS_SECRET, Twilio without from', () => {
    const prod = { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40) };
    for (const vars of [
      { ...prod, SMS_URL: 'http://sms.example.com', SMS_SECRET: 'a'.repeat(32) },
      { ...prod, SMS_URL: 'twilio+http://AC1:tok@127.0.0.1:9?from=%2B15005550006' },
      { SMS_URL: 'https://sms.example.com' },
      { SMS_URL: 'twilio://AC1:tok@api.twilio.com' },
      { SMS_URL: 'twilio://api.twilio.com?from=%2B15005550006' },
      { SMS_URL: 'ftp://sms.example.com' },
    ])
      expect(() => env(vars), JSON.stringify(vars)).toThrow(ConfigError);
  });
});
