import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a receiver saw it: raw body bytes as text, headers, arrival time. */
export interface Received {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Respond = (
  req: Received,
  index: number,
) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Highest number of simultaneous requests seen for one delivery id. */
  maxConcurrentPerDelivery: number;
  /** Requests received and not answered yet. */
  pending: number;
  /** Requests whose connection closed before they were answered (the sender went away). */
  cutOff: Received[];
  respond: Respond;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request and answers as `respond` says. */
export async function startReceiver(
  respond: Respond = () => ({ status: 200, body: 'ok' }),
  port = 0,
): Promise<Receiver> {
  const inFlight = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    maxConcurrentPerDelivery: 0,
    pending: 0,
    cutOff: [],
    respond,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = {
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = receiver.received.push(got) - 1;
      const id = String(req.headers['x-service-delivery-id'] ?? '');
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      receiver.maxConcurrentPerDelivery = Math.max(receiver.maxConcurrentPerDelivery, now);
      receiver.pending++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        receiver.pending--;
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      };
      res.on('close', () => {
        if (!res.writableFinished) receiver.cutOff.push(got);
        release();
      });
      const answer = receiver.respond(got, index);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const send = () => {
        if (released) return; // the connection closed first
        release();
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

const header = (h: http.IncomingHttpHeaders, name: string) => String(h[name] ?? '');

/** X-Service-Signature, verified the way docs/webhooks.md tells receivers to. */
export function verifyServiceSignature(
  secret: string,
  h: http.IncomingHttpHeaders,
  rawBody: string,
): boolean {
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret)
      .update(`${header(h, 'x-service-timestamp')}.${rawBody}`)
      .digest('hex')}`,
  );
  const given = Buffer.from(header(h, 'x-service-signature'));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Standard Webhooks `webhook-signature` (v1, base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"). */
export function verifyStandardSignature(
  secret: string,
  h: http.IncomingHttpHeaders,
  rawBody: string,
): boolean {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${header(h, 'webhook-id')}.${header(h, 'webhook-timestamp')}.${rawBody}`)
    .digest('base64');
  return header(h, 'webhook-signature')
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
