import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pooledSmtpUrl } from '../../src/mail/mailer.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';

/*
 * Mail goes over pooled SMTP sessions: a bulk send's 10,000 invitations are 10,000 SMTP
 * transactions, not 10,000 connections, greetings and EHLOs.
 */

describe('the SMTP mailer', () => {
  let sink: SmtpSink;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-pool-'));
  beforeAll(async () => {
    sink = await SmtpSink.start();
  });
  afterAll(async () => {
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const sendTen = async (smtpUrl: string) => {
    const mailer = sink.mailer(dir, smtpUrl);
    const before = { connections: sink.connections, messages: sink.messages.length };
    try {
      for (let i = 0; i < 10; i++) await mailer.send({ to: `pool${i}@example.test`, subject: `Mail ${i}`, text: 'Hello' });
    } finally {
      mailer.close();
    }
    return { connections: sink.connections - before.connections, messages: sink.messages.length - before.messages };
  };

  it('sends one message after another over one session', async () => {
    expect(await sendTen(sink.url)).toEqual({ connections: 1, messages: 10 });
  });

  it('opens a connection per message when the URL says pool=false', async () => {
    expect(await sendTen(`${sink.url}?pool=false`)).toEqual({ connections: 10, messages: 10 });
  });

  it('keeps what the URL says and its credentials', () => {
    expect(pooledSmtpUrl('smtp://user:p%40ss@relay.example:587', 10)).toBe('smtp://user:p%40ss@relay.example:587?pool=true&maxConnections=10');
    expect(pooledSmtpUrl('smtps://relay.example?maxConnections=3', 10)).toBe('smtps://relay.example?maxConnections=3&pool=true');
    expect(pooledSmtpUrl('smtp://relay.example?pool=false', 10)).toBe('smtp://relay.example?pool=false');
  });
});
