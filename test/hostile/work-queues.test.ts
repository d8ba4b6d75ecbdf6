import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, samplePdf } from '../helpers/factories.ts';
import { listen, requestUpload } from '../files/helpers.ts';
import { countPdfPages } from '../../src/pdf/page-count.ts';
import { signatureBombPdf } from './signature-bomb.ts';

/*
 * Public work is bounded by a queue, not only a rate: the public check (`/verify`, no key) takes
 * PUBLIC_VERIFY_QUEUE files at once (2 here; half the cores by default) and refuses more with 503
 * `busy` before reading their bodies; its thread runs at the lowest CPU priority; checks with a
 * key have their own queue and thread, never behind strangers' files; and
 * each PDF thread (here the one that reads uploads) refuses work past its queue instead of
 * queueing without bound. Idempotency-Key on the verify endpoint (a raw-body POST that stores
 * nothing) is ignored rather than a 500.
 */

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_VERIFY_QUEUE: '2', VERIFY_QUEUE: '2' } });
  base = await listen(t);
});
afterAll(async () => t.close());

async function verifyKeyed(pdf: Buffer, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/verify',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/pdf', ...headers },
    payload: pdf,
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

/** Opens a public check whose body never finishes: it holds a place in the queue until destroyed. */
function holdPublicCheck(url = base): Promise<net.Socket> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(
        'POST /verify/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: 1000000\r\n\r\n%PDF-1.7\n',
      );
      setTimeout(() => resolve(socket), 200);
    });
    socket.on('error', () => undefined);
  });
}

describe('the PDF threads refuse work past their queue', () => {
  // The upload-reading thread is held on a file that is a FIFO (its read waits until someone
  // writes to it), so it takes nothing from its queue while the 48 uploads arrive: 32 of them
  // wait, the rest are refused at once, whatever the machine's speed or database.
  it('answers uploads past the queue of the thread that reads them 503 busy with Retry-After; nothing of them is kept', async () => {
    const pdf = await samplePdf();
    const tickets = await Promise.all(
      Array.from({ length: 48 }, async () => {
        const id = await createDocument(t);
        return { id, ticket: await requestUpload(t, id) };
      }),
    );
    const fifo = path.join(os.tmpdir(), `signet-intake-hold-${process.pid}-${Date.now()}`);
    execFileSync('mkfifo', [fifo]);
    const held = countPdfPages(t.app.deps.pdf, { path: fifo }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pending = tickets.map(({ ticket }) =>
      t.app.inject({
        method: 'PUT',
        url: new URL(ticket.uploadUrl).pathname,
        headers: ticket.headers,
        payload: pdf,
      }),
    );
    // The refusals come back while the thread is still held; then it is let go.
    const settled: number[] = [];
    for (const p of pending) void p.then((a) => settled.push(a.statusCode));
    for (let i = 0; i < 200 && settled.filter((s) => s === 503).length < 16; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Opening it for writing is what lets the held read go; the reader may be gone before the
    // bytes arrive (it reads the file's size first), so a broken pipe here is expected.
    await fs.writeFile(fifo, 'not a PDF').catch(() => undefined);
    await held;
    await fs.rm(fifo, { force: true });
    const answers = await Promise.all(pending);
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    const refused = answers.filter((a) => a.statusCode === 503);
    expect(refused.length).toBeGreaterThan(0);
    // The held file may still have been waiting itself when the uploads came: 31 or 32 places.
    expect(refused.length).toBeGreaterThanOrEqual(16);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(31);
    for (const a of refused) {
      expect(a.json().error.code).toBe('busy');
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const refusedIds = tickets.filter((_, i) => statuses[i] === 503).map((x) => x.id);
    for (const id of refusedIds) {
      const doc = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
      expect(doc).toMatchObject({ fileSize: 0, documentHash: '' });
    }
  });
});

describe('public checks', () => {
  it('refuses a public check past PUBLIC_VERIFY_QUEUE with 503 busy before reading its body; a check with a key is still served', async () => {
    const holders = [await holdPublicCheck(), await holdPublicCheck()];
    try {
      const started = Date.now();
      const refused = await fetch(`${base}/verify/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: Readable.toWeb(Readable.from(signatureBombPdf(8 * 1024 * 1024, 2))) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('busy');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Date.now() - started).toBeLessThan(5000);

      const keyed = await verifyKeyed(await samplePdf());
      expect(keyed.status).toBe(200);
      expect(keyed.body.data).toMatchObject({ signatures: [], modifiedAfterLastSignature: false });
    } finally {
      for (const h of holders) h.destroy();
    }
    // Their places are given back once the clients go away.
    await new Promise((r) => setTimeout(r, 300));
    const after = await t.app.inject({
      method: 'POST',
      url: '/verify/check',
      headers: { 'content-type': 'application/pdf' },
      payload: await samplePdf(),
    });
    expect(after.statusCode).toBe(200);
  });

  it("serves a customer's check while the public thread is busy with a stranger's costly file", async () => {
    const small = await samplePdf();
    // Both threads started and warm.
    expect((await verifyKeyed(small)).status).toBe(200);
    let publicDone = false;
    const stranger = fetch(`${base}/verify/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: Readable.toWeb(
        Readable.from(signatureBombPdf(16 * 1024 * 1024, 50, undefined, 'distinct')),
      ) as ReadableStream,
      duplex: 'half',
    } as RequestInit).then(async (res) => {
      publicDone = true;
      return res.status;
    });
    // Let the stranger's 16 MB arrive and its 50 hashes of (nearly) the whole file begin: 800 MB
    // to hash, seconds of CPU, so it cannot end before a small check, even on an idle machine.
    await new Promise((r) => setTimeout(r, 500));
    const keyed = await verifyKeyed(small);
    expect(keyed.status).toBe(200);
    expect(publicDone).toBe(false);
    expect(await stranger).toBe(200);
  });
});

describe('the public queue by default', () => {
  it('admits half the cores (at least one) public checks at once: one on a 2-core machine', async () => {
    const plain = await buildTestApp();
    try {
      const url = await listen(plain);
      const places = Math.max(1, Math.floor(os.availableParallelism() / 2));
      const holders: net.Socket[] = [];
      for (let i = 0; i < places; i++) holders.push(await holdPublicCheck(url));
      try {
        const refused = await plain.app.inject({
          method: 'POST',
          url: '/verify/check',
          headers: { 'content-type': 'application/pdf' },
          payload: await samplePdf(),
        });
        expect(refused.statusCode).toBe(503);
        expect(refused.json().error.code).toBe('busy');
      } finally {
        for (const h of holders) h.destroy();
      }
    } finally {
      await plain.close();
    }
  });
});

/** Each thread of this process: CPU time so far (clock ticks) and nice value, from /proc. */
async function threads(): Promise<Map<string, { ticks: number; nice: number }>> {
  const out = new Map<string, { ticks: number; nice: number }>();
  for (const tid of await fs.readdir('/proc/self/task')) {
    const stat = await fs.readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => '');
    // The fields after the command's closing parenthesis, from the third (state) on.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (f.length > 16) out.set(tid, { ticks: Number(f[11]) + Number(f[12]), nice: Number(f[16]) });
  }
  return out;
}

/** The nice value of the thread that spent the most CPU while `work` ran. */
async function niceOfBusiestThread(work: () => Promise<unknown>): Promise<number> {
  const before = await threads();
  await work();
  const after = await threads();
  let busiest = { spent: -1, nice: Number.NaN };
  for (const [tid, { ticks, nice }] of after) {
    const spent = ticks - (before.get(tid)?.ticks ?? 0);
    if (spent > busiest.spent) busiest = { spent, nice };
  }
  return busiest.nice;
}

describe.skipIf(process.platform !== 'linux')('CPU priority', () => {
  it("spends a public check's CPU at the lowest priority (nice 19), a customer's at the server's own", async () => {
    // 50 signatures over 50 different ranges: 200 MB to hash, on the check's thread.
    const chunks: Buffer[] = [];
    for await (const c of signatureBombPdf(4 * 1024 * 1024, 50, undefined, 'distinct'))
      chunks.push(Buffer.from(c));
    const bomb = Buffer.concat(chunks);
    const publicCheck = () =>
      t.app.inject({
        method: 'POST',
        url: '/verify/check',
        headers: { 'content-type': 'application/pdf' },
        payload: bomb,
      });
    const publicNice = await niceOfBusiestThread(async () =>
      expect((await publicCheck()).statusCode).toBe(200),
    );
    const keyedNice = await niceOfBusiestThread(async () =>
      expect((await verifyKeyed(bomb)).status).toBe(200),
    );
    expect(publicNice).toBe(19);
    expect(keyedNice).toBe(os.getPriority());
  });
});

describe('Idempotency-Key on a raw-body POST', () => {
  it('is ignored by POST /api/v1/verify over a real socket (nothing is stored): no 500, no replay of another file', async () => {
    const send = async (body: AsyncIterable<Buffer> | Buffer) => {
      const res = await fetch(`${base}/api/v1/verify`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': 'application/pdf',
          'idempotency-key': 'verify-once',
        },
        body: Buffer.isBuffer(body)
          ? new Uint8Array(body)
          : (Readable.toWeb(Readable.from(body)) as ReadableStream),
        duplex: 'half',
      } as RequestInit);
      return {
        status: res.status,
        replayed: res.headers.get('idempotent-replayed'),
        body: (await res.json()) as { data: { signatures: unknown[] } },
      };
    };
    const first = await send(await samplePdf());
    expect(first).toMatchObject({ status: 200, replayed: null });
    expect(first.body.data.signatures).toEqual([]);
    const other = await send(signatureBombPdf(256 * 1024, 2));
    expect(other).toMatchObject({ status: 200, replayed: null });
    expect(other.body.data.signatures).toHaveLength(2);
  });
});
