import { Readable } from 'node:stream';
import type { ChildServer } from '../test/helpers/child-server.ts';
import { detachedCms, signatureBombPdf } from '../test/hostile/signature-bomb.ts';
import { percentile } from './harness.ts';

/**
 * Part of `npm run bench -- hostile`: 8 strangers send the public check (`/verify`, no key) a
 * crafted 50 MB PDF whose 50 signatures each cover the whole file, again as soon as they are
 * answered, while a customer, with its key, verifies a small PDF and lists its documents one
 * request after another. Prints the customer's p99 next to the same with no attack, in this one
 * run, and how the strangers were answered. Goal: at most 2x, and the strangers refused (503
 * `busy` or 429) rather than queued without bound.
 */

const ATTACKERS = 8;
const BOMB_BYTES = 50 * 1024 * 1024;

interface CustomerRun {
  verifyMs: number[];
  listMs: number[];
}

async function customer(
  server: ChildServer,
  key: string,
  pdf: Buffer,
  ms: number,
): Promise<CustomerRun> {
  const run: CustomerRun = { verifyMs: [], listMs: [] };
  const until = performance.now() + ms;
  while (performance.now() < until) {
    let started = performance.now();
    const verified = await fetch(`${server.url}/api/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' },
      body: new Uint8Array(pdf),
    });
    await verified.arrayBuffer();
    if (verified.status !== 200) throw new Error(`customer verify: ${verified.status}`);
    run.verifyMs.push(performance.now() - started);
    started = performance.now();
    const listed = await fetch(`${server.url}/api/v1/documents?limit=25`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await listed.arrayBuffer();
    run.listMs.push(performance.now() - started);
  }
  return run;
}

/** One stranger: sends the bomb again whenever answered, until `stop`; counts answers by status. */
async function stranger(
  server: ChildServer,
  cms: Buffer,
  stop: () => boolean,
  answers: Map<string, number>,
): Promise<void> {
  while (!stop()) {
    let status: string;
    try {
      const res = await fetch(`${server.url}/verify/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: Readable.toWeb(
          Readable.from(signatureBombPdf(BOMB_BYTES, 50, cms)),
        ) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      await res.arrayBuffer();
      status = String(res.status);
    } catch (err) {
      status = (err as { cause?: { code?: string } }).cause?.code ?? 'error';
    }
    answers.set(status, (answers.get(status) ?? 0) + 1);
    // A refused stranger tries again at once, as an attacker would (not after Retry-After).
  }
}

export async function verifyFlood(
  server: ChildServer,
  key: string,
  customerPdf: Buffer,
  loadAverage: () => string,
): Promise<void> {
  const cms = detachedCms();
  // Warm both threads so neither phase pays for starting one.
  await customer(server, key, customerPdf, 1000);
  const quiet = await customer(server, key, customerPdf, 8000);
  const answers = new Map<string, number>();
  let done = false;
  const strangers = Array.from({ length: ATTACKERS }, () =>
    stranger(server, cms, () => done, answers),
  );
  await new Promise((r) => setTimeout(r, 1000));
  const attacked = await customer(server, key, customerPdf, 15_000);
  done = true;
  await Promise.all(strangers);

  const p99 = (xs: number[]) => percentile(xs, 99);
  const row = (name: string, q: number[], a: number[]) =>
    [name, p99(q).toFixed(1), p99(a).toFixed(1), (p99(a) / p99(q)).toFixed(2), a.length].join(
      ' | ',
    );
  console.log(
    `\nhostile verify: ${ATTACKERS} strangers send a 50 MB PDF of 50 whole-file signatures to /verify while a customer works with its key (${loadAverage()})\n`,
  );
  console.log('customer request | p99 no attack ms | p99 under attack ms | ratio | requests');
  console.log(row('POST /api/v1/verify (small PDF)', quiet.verifyMs, attacked.verifyMs));
  console.log(row('GET /api/v1/documents', quiet.listMs, attacked.listMs));
  console.log(
    `strangers answered: ${[...answers].map(([status, n]) => `${status} × ${n}`).join(', ')}`,
  );
}
