import http from 'node:http';
import sharp from 'sharp';
import type { TestApp } from '../helpers/build-test-app.ts';

/** Starts the app on a real port of 127.0.0.1 and returns its base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

export interface Ticket {
  uploadUrl: string;
  fileKey: string;
  expiresIn: number;
  method: string;
  headers: Record<string, string>;
}

/** Step 1 through the API; fails the test unless it answers 200. */
export async function requestUpload(
  t: TestApp,
  docId: string,
  body?: Record<string, unknown>,
  key?: string,
): Promise<Ticket> {
  const res = await t.request('POST', `/api/v1/documents/${docId}/upload`, { body, key });
  if (res.status !== 200)
    throw new Error(`upload ticket: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Ticket;
}

/** The ticket's URL pointed at the real port (PUBLIC_URL in tests names port 3000). */
export function onPort(base: string, uploadUrl: string): string {
  return base + new URL(uploadUrl).pathname;
}

/** Step 2 with fetch, as a client would do it: the returned method and headers. */
export async function putFile(
  base: string,
  ticket: Ticket,
  bytes: Uint8Array,
  headers: Record<string, string> = ticket.headers,
) {
  const res = await fetch(onPort(base, ticket.uploadUrl), {
    method: ticket.method,
    headers,
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * `size` bytes starting with `head`, produced 64 KB at a time, so a test can send 50 MB without
 * holding 50 MB. The same zero-filled chunk is yielded repeatedly.
 */
export async function* generatedBody(
  size: number,
  head: Uint8Array = Buffer.alloc(0),
): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024);
  let sent = 0;
  if (head.length > 0) {
    yield Buffer.from(head);
    sent = head.length;
  }
  while (sent < size) {
    const n = Math.min(chunk.length, size - sent);
    yield n === chunk.length ? chunk : chunk.subarray(0, n);
    sent += n;
  }
}

/**
 * A valid one-page PDF of exactly `size` bytes, yielded 64 KB at a time: its bulk is one stream
 * of spaces no page uses, so the test holds no large buffer and the server can read its pages.
 */
export async function* generatedPdf(size: number): AsyncGenerator<Buffer> {
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids [3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]>>',
  ];
  let head = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(head.length);
    head += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  offsets.push(head.length);
  const tailOf = (length: number, streamAt: number) => {
    const xrefAt =
      streamAt +
      `4 0 obj\n<</Length ${length}>>\nstream\n`.length +
      length +
      '\nendstream\nendobj\n'.length;
    const rows = [...offsets, 0]
      .slice(0, 4)
      .map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)
      .join('');
    return `\nendstream\nendobj\nxref\n0 5\n0000000000 65535 f \n${rows}trailer\n<</Size 5/Root 1 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  };
  // The stream's length and the digits that write it depend on each other: settle them.
  let length = size - head.length;
  for (let i = 0; i < 3; i++) {
    const fixed =
      `4 0 obj\n<</Length ${length}>>\nstream\n`.length + tailOf(length, head.length).length;
    length = size - head.length - fixed;
  }
  yield Buffer.from(`${head}4 0 obj\n<</Length ${length}>>\nstream\n`, 'latin1');
  const spaces = Buffer.alloc(64 * 1024, 0x20);
  for (let left = length; left > 0; left -= spaces.length)
    yield left >= spaces.length ? spaces : spaces.subarray(0, left);
  yield Buffer.from(tailOf(length, head.length), 'latin1');
}

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** True when the server stopped reading before the client finished writing. */
  cutOff: boolean;
}

/**
 * A PUT over node:http, for what fetch hides: a chosen Content-Length, or none (chunked), and a
 * server that answers before the body is fully sent and then closes the connection.
 */
export function rawPut(
  url: string,
  headers: Record<string, string | number>,
  body: AsyncIterable<Buffer>,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let cutOff = false;
    let answered = false;
    // Keep-alive, as browsers and SDKs ask for it: a `Connection: close` answer is then the server's choice.
    const agent = new http.Agent({ keepAlive: true });
    const req = http.request(url, { method: 'PUT', headers, agent }, (res) => {
      answered = true;
      res.on('close', () => agent.destroy());
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: text ? JSON.parse(text) : undefined,
          cutOff,
        });
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Writing into a connection the server has closed after answering; the answer still counts.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') cutOff = true;
      else reject(err);
    });
    req.on('close', () => {
      if (!answered) reject(new Error('the connection closed without an answer'));
    });
    (async () => {
      for await (const chunk of body) {
        if (req.destroyed || cutOff) return;
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done);
              req.off('close', done);
              r();
            };
            req.on('drain', done);
            req.on('close', done);
          });
        }
      }
      req.end();
    })().catch(() => undefined);
  });
}

/** Small real images of each type, made by sharp. */
export async function sampleImage(
  type: 'png' | 'jpeg' | 'webp',
  width = 300,
  height = 200,
): Promise<Buffer> {
  const image = sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } },
  });
  return image[type]().toBuffer();
}
