/**
 * `npm run bench:cpu [-- bare health get-by-id list create]`: the server's own CPU time per
 * request (user and system, from /proc), which moves less between runs than throughput does.
 * Each endpoint gets 3,000 unmeasured requests, then BENCH_REQUESTS (default 100,000) measured,
 * at 50 connections, on a fresh SQLite database of 100,000 documents. Linux only.
 * `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` profiles the server (one endpoint a run gives
 * that endpoint's profile; `bench/profile-summary.ts` breaks it down by stage).
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { seedDocuments } from './seed.ts';
import { openBenchDatabase, startBaseline, startSignet } from './harness.ts';

/** User and system CPU time of a process, in milliseconds (clock ticks of 10 ms). */
function cpuOf(pid: number): { user: number; system: number } {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

async function perRequest(pid: number, options: autocannon.Options): Promise<string> {
  const amount = Number(process.env.BENCH_REQUESTS ?? 100_000);
  await autocannon({ ...options, connections: 50, amount: 3000 });
  const before = cpuOf(pid);
  const result = await autocannon({ ...options, connections: 50, amount });
  const after = cpuOf(pid);
  const us = (ms: number) => ((ms * 1000) / amount).toFixed(1).padStart(6);
  return `user ${us(after.user - before.user)} µs  system ${us(after.system - before.system)} µs  (${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx)`;
}

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : ['bare', 'health', 'get-by-id', 'list', 'create'];
const db = await openBenchDatabase('sqlite');
try {
  const seeded = await seedDocuments(db, 100_000);
  await db.handle.close();
  const server = await startSignet(
    db.env,
    process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
  );
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  const at = (path: string) => `${server.url}${path}`;
  const targets: Record<string, autocannon.Options> = {
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
  try {
    for (const name of names) {
      if (name === 'bare') {
        const bare = await startBaseline(1674);
        console.log(`${'bare'.padEnd(10)} ${await perRequest(bare.child.pid!, { url: bare.url })}`);
        await bare.stop();
      } else if (targets[name]) {
        console.log(`${name.padEnd(10)} ${await perRequest(server.child.pid!, targets[name])}`);
      } else {
        throw new Error(
          `Unknown endpoint ${name}; known: bare, ${Object.keys(targets).join(', ')}`,
        );
      }
    }
  } finally {
    await server.stop();
  }
} finally {
  await db.drop();
}
