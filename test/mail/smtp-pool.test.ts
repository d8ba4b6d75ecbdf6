import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
      for (let i = 0; i < 10; i++)
        await mailer.send({ to: `pool${i}@example.test`, subject: `Mail ${i}`, text: 'Hello' });
    } finally {
      mailer.close();
    }
    return {
      connections: sink.connections - before.connections,
      messages: sink.messages.length - before.messages,
    };
  };

  it('sends one message after another over one session', async () => {
    expect(await sendTen(sink.url)).toEqual({ connections: 1, messages: 10 });
  });

  it('opens a connection per message when the URL says pool=false', async () => {
    expect(await sendTen(`${sink.url}?pool=false`)).toEqual({ connections: 10, messages: 10 });
  });

  it("turns Nagle's algorithm off on its SMTP connections (a message's last writes would wait for a delayed acknowledgement)", async () => {
    const noDelay = vi.spyOn(net.Socket.prototype, 'setNoDelay');
    try {
      expect(await sendTen(sink.url)).toEqual({ connections: 1, messages: 10 });
      // The mailer's own sockets: the sink turns it off on the sockets it accepts (`server` set).
      const mailerCalls = noDelay.mock.calls.filter(
        (_args, i) => !(noDelay.mock.contexts[i] as net.Socket & { server?: unknown }).server,
      );
      expect(mailerCalls).toEqual([[true]]);
    } finally {
      noDelay.mockRestore();
    }
  });

  it('sends over TLS on those connections: implicit (smtps) and STARTTLS', async () => {
    for (const scheme of ['smtps', 'smtp']) {
      const secured: boolean[] = [];
      // smtp-server's own self-signed certificate; the URL tells the mailer not to verify it.
      const server = new SMTPServer({
        secure: scheme === 'smtps',
        authOptional: true,
        disabledCommands: ['AUTH'],
        logger: false,
        closeTimeout: 200,
        onData(stream, session, callback) {
          stream.resume();
          stream.on('end', () => {
            secured.push(session.secure);
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      const port = (server.server.address() as net.AddressInfo).port;
      const mailer = sink.mailer(dir, `${scheme}://127.0.0.1:${port}?tls.rejectUnauthorized=false`);
      try {
        await mailer.send({ to: 'tls@example.test', subject: scheme, text: 'Hello' });
        await mailer.send({ to: 'tls@example.test', subject: scheme, text: 'Again' });
      } finally {
        mailer.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      expect(secured, scheme).toEqual([true, true]);
    }
  });

  it('keeps what the URL says and its credentials', () => {
    expect(pooledSmtpUrl('smtp://user:p%40ss@relay.example:587', 10)).toBe(
      'smtp://user:p%40ss@relay.example:587?pool=true&maxConnections=10',
    );
    expect(pooledSmtpUrl('smtps://relay.example?maxConnections=3', 10)).toBe(
      'smtps://relay.example?maxConnections=3&pool=true',
    );
    expect(pooledSmtpUrl('smtp://relay.example?pool=false', 10)).toBe(
      'smtp://relay.example?pool=false',
    );
  });
});

describe('the SMTP sink the tests use', () => {
  it('keeps serving after a sender resets its session (a Signet process killed with pooled sessions open)', async () => {
    const sink = await SmtpSink.start();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-reset-'));
    try {
      const socket = net.connect(sink.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      // Killed mid-transaction, as a server sending over a pooled session is: a reset before MAIL FROM is quiet.
      for (const command of ['EHLO killed.example', 'MAIL FROM:<killed@example.test>']) {
        socket.write(`${command}\r\n`);
        await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      }
      socket.resetAndDestroy();
      await expect.poll(() => sink.clientErrors.length).toBeGreaterThan(0);
      const mailer = sink.mailer(dir);
      await mailer.send({ to: 'after-reset@example.test', subject: 'Still here', text: 'Hello' });
      mailer.close();
      expect(sink.to('after-reset@example.test')).toHaveLength(1);
    } finally {
      await sink.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
