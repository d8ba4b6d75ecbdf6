import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { FastifyBaseLogger } from 'fastify';
import { createMailer, type Mailer } from '../../src/mail/mailer.ts';

const noop = () => undefined;
// The SMTP mailer never logs; the spool branch it does not take is the only user of `log`.
const silentLog = {
  info: noop,
  warn: noop,
  error: noop,
  debug: noop,
  trace: noop,
  fatal: noop,
  child: () => silentLog,
  level: 'silent',
} as unknown as FastifyBaseLogger;

/** A message as the SMTP peer received it, parsed. */
export interface SinkMessage {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** The HTML part, '' when none. */
  html: string;
  replyTo: string;
  /** The message as it came over the wire (headers, MIME parts, transfer encodings). */
  raw: string;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

/**
 * A real SMTP server on 127.0.0.1 (random port) that keeps every message it accepts, parsed.
 * No TLS and no AUTH are offered, so a plain `smtp://` client talks to it as to any relay.
 * Recipients for which `reject` returns true are refused at RCPT TO with a permanent 550, the way
 * a mail server answers an address that does not exist.
 */
export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  readonly rejected: string[] = [];
  /** When set, each message is accepted only this long after its data arrived, as a slow relay would (the sender waits for the reply). */
  holdMs = 0;
  /** Messages whose data arrived and whose acceptance is still held back. */
  holding = 0;
  /** SMTP connections opened to this sink so far. */
  connections = 0;
  /** Errors of client connections (a sender killed mid-session resets its sessions); the sink keeps serving, as a relay does. */
  readonly clientErrors: Error[] = [];
  private waiters: { predicate: (m: SinkMessage) => boolean; resolve: (m: SinkMessage) => void }[] =
    [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** `port`: listen there (a sink restarted where a stopped one was); default a random port. */
  static async start(
    options: { reject?: (address: string) => boolean; port?: number } = {},
  ): Promise<SmtpSink> {
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      size: 60 * 1024 * 1024,
      // Signet keeps pooled SMTP sessions open: a stop ends them (421) at once, as a relay going down would.
      closeTimeout: 200,
      onConnect(_session, callback) {
        sink!.connections++;
        callback();
      },
      onRcptTo(address, _session, callback) {
        if (options.reject?.(address.address.toLowerCase())) {
          sink!.rejected.push(address.address.toLowerCase());
          const err = new Error('5.1.1 Mailbox does not exist') as Error & { responseCode: number };
          err.responseCode = 550;
          return callback(err);
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        new Promise<Buffer>((resolve, reject) => {
          stream.once('end', () => resolve(Buffer.concat(chunks)));
          stream.once('error', reject);
        })
          .then(async (raw) => ({ raw, parsed: await simpleParser(raw) }))
          .then(({ raw, parsed }) => {
            const message: SinkMessage = {
              to: (session.envelope.rcptTo || []).map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              replyTo: parsed.replyTo?.text ?? '',
              raw: raw.toString('utf8'),
              attachments: parsed.attachments.map((a) => ({
                filename: a.filename ?? '',
                contentType: a.contentType,
                content: a.content,
              })),
            };
            if (!sink!.holdMs) {
              sink!.accept(message);
              return callback();
            }
            sink!.holding++;
            setTimeout(() => {
              sink!.holding--;
              sink!.accept(message);
              callback();
            }, sink!.holdMs);
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const port = (server.server.address() as AddressInfo).port;
    sink = new SmtpSink(server, port);
    // smtp-server re-emits a client socket's error (ECONNRESET when a Signet process is SIGKILLed
    // with pooled sessions open) on the server: unheard, it would crash the test process.
    server.on('error', (err: Error) => sink!.clientErrors.push(err));
    return sink;
  }

  private accept(message: SinkMessage): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate(message)) return true;
      w.resolve(message);
      return false;
    });
  }

  /** Messages delivered to `address` so far, oldest first. */
  to(address: string): SinkMessage[] {
    return this.messages.filter((m) => m.to.includes(address.toLowerCase()));
  }

  /** The first message (already received or still to come) matching `predicate`. */
  waitFor(predicate: (m: SinkMessage) => boolean, timeoutMs = 5000): Promise<SinkMessage> {
    const found = this.messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('No matching mail arrived at the SMTP sink')),
        timeoutMs,
      );
      this.waiters.push({
        predicate,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** The production mailer (nodemailer over SMTP) pointed at this sink. */
  mailer(dataDir: string, smtpUrl = this.url): Mailer {
    return createMailer({
      smtpUrl,
      from: 'Signet <no-reply@signet.test>',
      spoolDir: dataDir,
      log: silentLog,
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
