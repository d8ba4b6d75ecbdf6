import { Worker } from 'node:worker_threads';
import type { ChildServer } from '../test/helpers/child-server.ts';
import { percentile } from './harness.ts';

/**
 * Part of `npm run bench -- hostile`: 8 strangers send the public check (`/verify`, no key) a
 * crafted 50 MB PDF whose 50 signatures each cover (nearly) the whole file, each over a range of
 * its own so that no digest can be shared (50 hashes of 50 MB), again as soon as they are
 * answered, while a customer, with its key, verifies a small PDF and lists its documents one
 * request after another; 3 rounds of 4 s with no attack then 6 s under attack. Prints the
 * customer's p99 next to the same with no attack, in this one run, and how the strangers were
 * answered. The strangers run on a thread of their own (bench/hostile-strangers.ts), so making
 * their bodies does not slow the customer's requests here. Goal: at most 2x, and the strangers refused (503 `busy` or 429) rather than queued
 * without bound.
 */

const ATTACKERS = 8;
const BOMB_BYTES = 50 * 1024 * 1024;
/** Rounds of a quiet phase then an attacked one (the strangers' first second not measured). */
const ROUNDS = 3;
const QUIET_MS = 4000;
const ATTACKED_MS = 6000;

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

export async function verifyFlood(
  server: ChildServer,
  key: string,
  customerPdf: Buffer,
  loadAverage: () => string,
): Promise<void> {
  // TypeScript run without a build: the thread registers tsx before importing its module.
  const module = JSON.stringify(new URL('./hostile-strangers.ts', import.meta.url).href);
  const strangers = new Worker(
    `import('tsx/esm/api').then((m) => { m.register(); return import(${module}); })`,
    { eval: true, workerData: { url: server.url, strangers: ATTACKERS, bytes: BOMB_BYTES } },
  );
  const next = <T>(wanted: (message: unknown) => boolean) =>
    new Promise<T>((resolve) => {
      const on = (message: unknown) => {
        if (!wanted(message)) return;
        strangers.off('message', on);
        resolve(message as T);
      };
      strangers.on('message', on);
    });
  // Warm both threads so neither phase pays for starting one.
  await customer(server, key, customerPdf, 1000);
  const quiet: CustomerRun = { verifyMs: [], listMs: [] };
  const attacked: CustomerRun = { verifyMs: [], listMs: [] };
  const add = (to: CustomerRun, run: CustomerRun) => {
    to.verifyMs.push(...run.verifyMs);
    to.listMs.push(...run.listMs);
  };
  // Quiet and attacked phases alternate, so a change in the machine's other load over the run
  // falls on both; a quiet phase starts only once every stranger's request has been answered
  // (the server's 60 s deadline bounds the wait).
  for (let round = 0; round < ROUNDS; round++) {
    add(quiet, await customer(server, key, customerPdf, QUIET_MS));
    strangers.postMessage('attack');
    await new Promise((r) => setTimeout(r, 1000));
    add(attacked, await customer(server, key, customerPdf, ATTACKED_MS));
    const idle = next((m) => m === 'idle');
    strangers.postMessage('hold');
    await idle;
  }
  const answered = next<[string, number][]>(Array.isArray);
  strangers.postMessage('stop');
  const answers = await answered;
  await strangers.terminate();

  const p99 = (xs: number[]) => percentile(xs, 99);
  const row = (name: string, q: number[], a: number[]) =>
    [name, p99(q).toFixed(1), p99(a).toFixed(1), (p99(a) / p99(q)).toFixed(2), a.length].join(
      ' | ',
    );
  console.log(
    `\nhostile verify: ${ATTACKERS} strangers send a 50 MB PDF of 50 signatures over 50 different ranges to /verify while a customer works with its key (${loadAverage()})\n`,
  );
  console.log('customer request | p99 no attack ms | p99 under attack ms | ratio | requests');
  console.log(row('POST /api/v1/verify (small PDF)', quiet.verifyMs, attacked.verifyMs));
  console.log(row('GET /api/v1/documents', quiet.listMs, attacked.listMs));
  console.log(`strangers answered: ${answers.map(([status, n]) => `${status} × ${n}`).join(', ')}`);
}
