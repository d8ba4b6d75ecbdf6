import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedBody, listen, requestUpload } from '../files/helpers.ts';
import { createDocument } from '../helpers/factories.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * A body refused before it has all arrived (413 on its declared length, or cut off on the way)
 * must reach Node's own HTTP client and `fetch` as the answer, over a real socket: directly, and
 * through a plain TCP relay in front (what Docker's published ports or a TCP load balancer are),
 * where closing the connection early turned the answer into ECONNRESET. The rest of the body is
 * read and discarded within LINGER_TIMEOUT_MS (500 ms here), then a sender still going is cut off;
 * not after a 429 (a client over its rate is closed at once).
 */

let t: SigningTest;
let direct: string;
let relayed: string;
let relay: net.Server;
beforeAll(async () => {
  t = await signingApp({ LINGER_TIMEOUT_MS: '500', RATE_LIMIT_TOKEN_PER_MINUTE: '3' });
  direct = await listen(t);
  const { port } = new URL(direct);
  relay = net.createServer((client) => {
    const upstream = net.connect(Number(port), '127.0.0.1');
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayed = `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  relay.close();
  await t.stop();
});

type Sent = { size: number; head?: Buffer; chunked?: boolean };

/** Node's http client, the body streamed from a generator; resolves with the answer or the client's error code. */
function viaHttp(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Sent,
): Promise<{ status: number; code: string } | { error: string }> {
  return new Promise((resolve) => {
    const url = new URL(base + path);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, ...(body.chunked ? {} : { 'content-length': String(body.size) }) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).error?.code }),
        );
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    Readable.from(generatedBody(body.size, body.head)).pipe(req);
  });
}

async function viaFetch(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Sent,
): Promise<{ status: number; code: string } | { error: string }> {
  try {
    const res = await fetch(base + path, {
      method,
      headers,
      body: Readable.toWeb(Readable.from(generatedBody(body.size, body.head))) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    return {
      status: res.status,
      code: ((await res.json()) as { error?: { code: string } }).error?.code ?? '',
    };
  } catch (err) {
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    return { error: cause?.code ?? (err as Error).message };
  }
}

const MB = 1024 * 1024;
const PDF_HEAD = Buffer.from('%PDF-1.7\n');

describe.each([
  ['directly', () => direct],
  ['through a TCP relay', () => relayed],
])('an early 413 reaches the client %s', (_name, base) => {
  it('a 2 MB JSON body to POST /api/v1/documents', async () => {
    const headers = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' };
    const body = { size: 2 * MB, head: Buffer.from('{"name":"') };
    const want = { status: 413, code: 'payload_too_large' };
    expect(await viaHttp(base(), 'POST', '/api/v1/documents', headers, body)).toEqual(want);
    expect(await viaFetch(base(), 'POST', '/api/v1/documents', headers, body)).toEqual(want);
    const chunked = { ...body, chunked: true };
    expect(await viaHttp(base(), 'POST', '/api/v1/documents', headers, chunked)).toEqual(want);
  });

  it('a 51 MB PUT to an upload URL, declared or cut off on the way', async () => {
    const ticket = await requestUpload(t, await createDocument(t));
    const path = new URL(ticket.uploadUrl).pathname;
    const body = { size: 51 * MB, head: PDF_HEAD };
    const want = { status: 413, code: 'payload_too_large' };
    expect(await viaHttp(base(), 'PUT', path, ticket.headers, body)).toEqual(want);
    expect(await viaFetch(base(), 'PUT', path, ticket.headers, body)).toEqual(want);
    expect(await viaHttp(base(), 'PUT', path, ticket.headers, { ...body, chunked: true })).toEqual(
      want,
    );
  });

  it("an 11 MB file to a signer's file field", async () => {
    const email = address('big-file');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Big File', email }],
      fields: [
        { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 },
        {
          type: 'file',
          label: 'Proof',
          page: 1,
          x: 10,
          y: 30,
          width: 20,
          height: 5,
          assignedTo: 0,
        },
      ],
    });
    const field = doc.fields.find((f) => f.type === 'file');
    const path = `/api/v1/signing/${latestToken(t, email)}/fields/${field?.id}/file`;
    const headers = { 'content-type': 'application/pdf' };
    const body = { size: 11 * MB, head: PDF_HEAD };
    const want = { status: 413, code: 'payload_too_large' };
    expect(await viaHttp(base(), 'PUT', path, headers, body)).toEqual(want);
    expect(await viaFetch(base(), 'PUT', path, headers, body)).toEqual(want);
  });
});

/** Sends `head` on a raw socket, then `trickle` every 100 ms; resolves with the answer and when the server closed. */
function trickle(head: string, waitMs: number): Promise<{ text: string; closedMs: number | null }> {
  return new Promise((resolve) => {
    const { port } = new URL(direct);
    const started = Date.now();
    let text = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    const drip = setInterval(() => socket.write('x'), 100);
    const finish = (closedMs: number | null) => {
      clearInterval(drip);
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedMs });
    };
    const timer = setTimeout(() => finish(null), waitMs);
    socket.on('data', (c) => {
      text += c.toString('latin1');
    });
    socket.on('error', () => finish(Date.now() - started));
    socket.on('close', () => finish(Date.now() - started));
  });
}

describe('bounded', () => {
  it('cuts off a sender that keeps trickling after its answer, within LINGER_TIMEOUT_MS', async () => {
    const ticket = await requestUpload(t, await createDocument(t));
    const path = new URL(ticket.uploadUrl).pathname;
    const res = await trickle(
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: ${51 * MB}\r\n\r\n`,
      5000,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 413/);
    expect(res.closedMs ?? Infinity).toBeLessThan(2000);
  });

  it('does not wait for a body declared past what it would read (64 MB)', async () => {
    const ticket = await requestUpload(t, await createDocument(t));
    const path = new URL(ticket.uploadUrl).pathname;
    const res = await trickle(
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: ${200 * MB}\r\n\r\n`,
      5000,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 413/);
    expect(res.text.toLowerCase()).toContain('connection: close');
    expect(res.closedMs ?? Infinity).toBeLessThan(400);
  });

  it('does not read on after a 429: a client over its rate is closed at once', async () => {
    const ticket = await requestUpload(t, await createDocument(t));
    const path = new URL(ticket.uploadUrl).pathname;
    for (let i = 0; i < 3; i++)
      await fetch(`${direct}${path}`, { method: 'PUT', headers: ticket.headers, body: 'x' });
    const res = await trickle(
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: ${MB}\r\n\r\n`,
      5000,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 429/);
    expect(res.text.toLowerCase()).toContain('connection: close');
    expect(res.closedMs ?? Infinity).toBeLessThan(400);
  });
});
