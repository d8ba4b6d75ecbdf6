/**
 * `npm run bench:cpu [-- bare health get-by-id list create]`: the server's own CPU time per
 * request (user and system, from /proc), which moves less between runs than throughput does.
 * Each endpoint gets 3,000 unmeasured requests, then BENCH_REQUESTS (default 100,000) measured,
 * at 50 connections, on a fresh SQLite database of 100,000 documents. Linux only.
 * Each API endpoint is then measured the same way on the naive implementation (bench/naive.ts, the
 * fair anchor) on the same database, and the ratio of the two printed.
 * `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` profiles the server (one endpoint a run gives
 * that endpoint's profile; `bench/profile-summary.ts` breaks it down by stage). With
 * BENCH_DATABASE_URL (`postgres://…`) on a fresh PostgreSQL database instead (the server's CPU
 * time only: PostgreSQL's own is not counted); BENCH_PERF_OFF switches mechanisms off in Signet.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { seedDocuments } from './seed.ts';
import { openBenchDatabase, startBaseline, startNaive, startSignet } from './harness.ts';

/** User and system CPU time of a process, in milliseconds (clock ticks of 10 ms). */
function cpuOf(pid: number): { user: number; system: number } {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

async function perRequest(
  pid: number,
  options: autocannon.Options,
): Promise<{ text: string; us: number }> {
  const amount = Number(process.env.BENCH_REQUESTS ?? 100_000);
  await autocannon({ ...options, connections: 50, amount: 3000 });
  const before = cpuOf(pid);
  const result = await autocannon({ ...options, connections: 50, amount });
  const after = cpuOf(pid);
  const us = (ms: number) => ((ms * 1000) / amount).toFixed(1).padStart(6);
  return {
    text: `user ${us(after.user - before.user)} µs  system ${us(after.system - before.system)} µs  (${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx)`,
    us: ((after.user + after.system - before.user - before.system) * 1000) / amount,
  };
}

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : ['bare', 'health', 'get-by-id', 'list', 'create'];
const db = await openBenchDatabase(
  process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite',
  process.env.BENCH_DATABASE_URL,
);
try {
  const seeded = await seedDocuments(db, 100_000);
  await db.handle.close();
  const server = await startSignet(
    process.env.BENCH_PERF_OFF ? { ...db.env, PERF_OFF: process.env.BENCH_PERF_OFF } : db.env,
    process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
  );
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  const naive = await startNaive(db.env);
  const targetsOn = (base: string): Record<string, autocannon.Options> => {
    const at = (path: string) => `${base}${path}`;
    return {
      health: { url: at('/healthz') },
      'get-by-id': { url: at(`/api/v1/documents/${seeded.detailId}`), headers },
      list: { url: at('/api/v1/documents?limit=25'), headers },
      create: {
        url: at('/api/v1/documents'),
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Benchmark agreement', message: 'Please sign' }),
      },
    };
  };
  const targets = targetsOn(server.url);
  const anchor = targetsOn(naive.url);
  try {
    for (const name of names) {
      if (name === 'bare') {
        const bare = await startBaseline(1674);
        const b = await perRequest(bare.child.pid!, { url: bare.url });
        console.log(`${'bare'.padEnd(16)} ${b.text}`);
        await bare.stop();
      } else if (targets[name]) {
        const signet = await perRequest(server.child.pid!, targets[name]);
        console.log(`${name.padEnd(16)} ${signet.text}`);
        if (name === 'health') continue;
        const n = await perRequest(naive.child.pid!, anchor[name]);
        const ratio = (n.us / signet.us).toFixed(2);
        console.log(`${`${name} (naive)`.padEnd(16)} ${n.text}; Signet ${ratio} × the anchor`);
      } else {
        throw new Error(
          `Unknown endpoint ${name}; known: bare, ${Object.keys(targets).join(', ')}`,
        );
      }
    }
  } finally {
    await Promise.all([server.stop(), naive.stop()]);
  }
} finally {
  await db.drop();
}
