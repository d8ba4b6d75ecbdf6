import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../campaigns/setup.ts';
import { buildTestApp } from '../helpers/build-test-app.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  address,
  attachPdf,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * Mail as the organization: nothing a visitor typed reaches a subject; an address nobody proved
 * (a public form without a code) gets a link to its signed copy, never the PDF attached; codes
 * are never in a subject or a log line; and wrong codes are capped over the life of the links
 * (25): per signer, then its links are locked until the sender issues a new one, and on a public
 * form per form and address, so no visitor can lock the form for everyone.
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => t.stop());

const pub = (slug: string, rest = '') => `/api/v1/public/campaigns/${slug}${rest}`;
const PHISH = 'URGENT: your bank account is locked… https://evil.example/login';
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('a public form mails its signed copy', () => {
  it("never puts the visitor's typed name in a subject, and sends an address nobody proved a link, not the PDF", async () => {
    const form = await createCampaign(t, { collectPhone: false, name: 'Volunteers 2026' });
    const victim = address('victim');
    const res = await t.request('POST', pub(form.slug, '/submissions'), {
      key: null,
      body: { name: PHISH, email: victim, signature: typed('x') },
    });
    expect(res.status).toBe(201);
    await t.settle();
    const mails = t.sink.to(victim);
    expect(mails.length).toBeGreaterThan(0);
    for (const m of mails) {
      expect(m.subject).not.toMatch(/URGENT|evil|locked/);
      expect(m.subject).toContain('Volunteers 2026');
    }
    const copy = mails.find((m) => /signed by everyone/.test(m.subject));
    expect(copy?.attachments).toEqual([]);
    const link = /http:\/\/localhost:3000(\/api\/v1\/signing\/[A-Za-z0-9_-]{43}\/file)/.exec(
      copy?.text ?? '',
    )?.[1];
    expect(link).toBeDefined();
    const download = await t.app.inject({ method: 'GET', url: link ?? '' });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // The link expires like a signing link (30 days).
    t.clock.advance(31 * 24 * 3600_000);
    try {
      expect((await t.app.inject({ method: 'GET', url: link ?? '' })).statusCode).toBe(403);
    } finally {
      t.clock.advance(-31 * 24 * 3600_000);
    }
  });

  it('attaches the PDF for an address the visitor proved with the emailed code', async () => {
    const form = await createCampaign(t, { collectPhone: false, requireOtp: true });
    const email = address('proven');
    expect(
      (await t.request('POST', pub(form.slug, '/otp'), { key: null, body: { email } })).status,
    ).toBe(200);
    await t.settle();
    const code = codeIn(t.sink.to(email).at(-1)?.text ?? '');
    const res = await t.request('POST', pub(form.slug, '/submissions'), {
      key: null,
      body: { name: 'Proven Person', email, signature: typed('P'), otp: code },
    });
    expect(res.status).toBe(201);
    await t.settle();
    const copy = t.sink.to(email).find((m) => /signed by everyone/.test(m.subject));
    expect(copy?.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
  });
});

describe('codes stay out of subjects and logs', () => {
  it('mails a signing code in the body only; the spooled mail log does not carry it', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const database = await createTestDatabase();
    const spooled = await buildTestApp({
      database,
      mailer: createMailer({
        smtpUrl: undefined,
        from: 'Signet <no-reply@signet.test>',
        spoolDir: `${database.dataDir}/mail`,
        log,
      }),
    });
    try {
      const doc = await spooled.request('POST', '/api/v1/documents', {
        body: {
          name: 'Spooled',
          otpMethod: 'email',
          signers: [{ name: 'S', email: 's@x.test' }],
          fields: [
            { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 },
          ],
        },
      });
      await attachPdf(spooled, doc.body.data.id);
      expect(
        (await spooled.request('POST', `/api/v1/documents/${doc.body.data.id}/send`)).status,
      ).toBe(200);
      const detail = await spooled.request('GET', `/api/v1/documents/${doc.body.data.id}`);
      const link = await spooled.request(
        'POST',
        `/api/v1/documents/${doc.body.data.id}/signers/${detail.body.data.signers[0].id}/link`,
      );
      const token = String(link.body.data.url).split('/').at(-1);
      expect(
        (await spooled.request('POST', `/api/v1/signing/${token}/otp`, { key: null })).status,
      ).toBe(200);
      await spooled.drainJobs();
      const spool = lines
        .filter((l) => l.includes('mail spooled'))
        .map((l) => JSON.parse(l) as { subject: string; file: string });
      const coded = spool.find((l) => l.subject.includes('code'));
      expect(coded?.subject).toBe('Your signing code for "Spooled"');
      const eml = await readFile(coded?.file ?? '', 'utf8');
      const code = /is (\d{6})\./.exec(eml.replace(/=\r?\n/g, ''))?.[1] ?? '';
      expect(code).toMatch(/^\d{6}$/);
      expect(lines.join('\n')).not.toContain(code);
    } finally {
      await spooled.close();
    }
  });
});

describe('wrong codes over the life of the links', () => {
  /** Asks for a code (a minute after the last) and returns it, read from the mail. */
  async function freshCode(ask: () => Promise<{ status: number }>, email: string) {
    t.clock.advance(61_000);
    expect((await ask()).status).toBe(200);
    await t.settle();
    return codeIn(t.sink.to(email).at(-1)?.text ?? '');
  }

  it('locks a signer’s links after 25 wrong codes, until the sender issues a new link', async () => {
    const email = address('guessed');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Guessed', email }],
      body: { otpMethod: 'email' },
    });
    const token = latestToken(t, email);
    const ask = () => t.request('POST', `/api/v1/signing/${token}/otp`, { key: null });
    const complete = (tok: string, otp: string) =>
      t.request('POST', `/api/v1/signing/${tok}/complete`, {
        key: null,
        body: { values: {}, signature: typed(), otp },
      });
    const answers: string[] = [];
    for (let round = 0; round < 5; round++) {
      const code = await freshCode(ask, email);
      for (let i = 0; i < 5; i++)
        answers.push((await complete(token, other(code))).body.error.code);
    }
    expect(answers.slice(0, 24).every((c) => c === 'invalid_otp')).toBe(true);
    expect(answers[24]).toBe('link_locked');
    const page = await t.request('GET', `/api/v1/signing/${token}`, { key: null });
    expect(page.status).toBe(403);
    expect(page.body.error.code).toBe('link_locked');
    expect((await ask()).status).toBe(403);

    const fresh = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`,
    );
    const newToken = String(fresh.body.data.url).split('/').at(-1) ?? '';
    expect((await t.request('GET', `/api/v1/signing/${newToken}`, { key: null })).status).toBe(200);
    // Past the hour's five codes (otp-window.ts), then the right code signs.
    t.clock.advance(3_600_000);
    const code = await freshCode(
      () => t.request('POST', `/api/v1/signing/${newToken}/otp`, { key: null }),
      email,
    );
    expect((await complete(newToken, code)).status).toBe(200);
  });

  it('on a public form, counts per form and address: the guessed address is locked there, the form stays open', async () => {
    const form = await createCampaign(t, { collectPhone: false, requireOtp: true });
    const email = address('form-guessed');
    const ask = () => t.request('POST', pub(form.slug, '/otp'), { key: null, body: { email } });
    const submit = (who: string, otp: string) =>
      t.request('POST', pub(form.slug, '/submissions'), {
        key: null,
        body: { name: 'Guess', email: who, signature: typed('G'), otp },
      });
    const answers: string[] = [];
    for (let round = 0; round < 5; round++) {
      const code = await freshCode(ask, email);
      for (let i = 0; i < 5; i++) answers.push((await submit(email, other(code))).body.error.code);
    }
    expect(answers.slice(0, 24).every((c) => c === 'invalid_otp')).toBe(true);
    expect(answers[24]).toBe('link_locked');
    // An hour later, with a fresh code window: still locked, and no code is mailed to it.
    t.clock.advance(3_600_000);
    const before = t.sink.to(email).length;
    const refused = await ask();
    expect(refused.status).toBe(403);
    expect((refused as { body: { error: { code: string } } }).body.error.code).toBe('link_locked');
    await t.settle();
    expect(t.sink.to(email).length).toBe(before);
    // Another visitor signs the same form.
    const someone = address('someone');
    const code = await freshCode(
      () => t.request('POST', pub(form.slug, '/otp'), { key: null, body: { email: someone } }),
      someone,
    );
    expect((await submit(someone, code)).status).toBe(201);
  });
});
