/**
 * `npm run bench:pg-creates` (needs BENCH_DATABASE_URL): what one create costs PostgreSQL when
 * creates are batched (src/db/pg-insert-batch.ts), without HTTP in the way. Rounds of 25 creates
 * started together (one batched statement each, as under load), one round at a time, on a fresh
 * database of 20,000 documents; prints per create the wall time, the CPU time of every
 * `postgres` process (from /proc, so Linux only, and only meaningful on a database server that
 * runs nothing else meanwhile) and this process's CPU time. Five measured runs of 10,000 creates
 * after 5,000 unmeasured ones. Figures only, no verdict. BENCH_CREATES_PER_ROUND changes the 25.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { createDocument } from '../src/modules/documents/create-document.service.ts';
import type { AppDeps } from '../src/deps.ts';
import { openBenchDatabase } from './harness.ts';
import { seedDocuments } from './seed.ts';

const url = process.env.BENCH_DATABASE_URL;
if (!url) {
  console.error(
    'Set BENCH_DATABASE_URL=postgres://… (a server where this may create and drop a database).',
  );
  process.exit(1);
}
const PER_ROUND = Number(process.env.BENCH_CREATES_PER_ROUND ?? 25);
const ROUNDS = Math.round(10_000 / PER_ROUND);

/** CPU time, in milliseconds, of every process named postgres (clock ticks of 10 ms). */
function postgresCpuMs(): number {
  let ms = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue;
    const fields = stat.split(') ')[1].split(' ');
    ms += (Number(fields[11]) + Number(fields[12])) * 10;
  }
  return ms;
}

const db = await openBenchDatabase('postgres', url);
try {
  const seeded = await seedDocuments(db, 20_000);
  await sql`checkpoint`.execute(db.handle.db);
  // What createDocument reads of the server's dependencies on this path.
  const deps = { clock: systemClock, dialect: 'postgres', db: db.handle.db } as unknown as AppDeps;
  const actor = {
    orgId: seeded.orgId,
    meta: { ipAddress: '127.0.0.1', userAgent: 'bench', geoCity: '', geoCountry: '' },
  };
  const body = { name: 'Benchmark agreement', message: 'Please sign' } as Parameters<
    typeof createDocument
  >[2];
  const rounds = async (n: number) => {
    for (let i = 0; i < n; i++)
      await Promise.all(Array.from({ length: PER_ROUND }, () => createDocument(deps, actor, body)));
  };
  await rounds(Math.round(5_000 / PER_ROUND));
  console.log(
    `PostgreSQL, batched creates, ${PER_ROUND} per statement, one statement at a time; per create:`,
  );
  for (let run = 1; run <= 5; run++) {
    const pgBefore = postgresCpuMs();
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    await rounds(ROUNDS);
    const n = ROUNDS * PER_ROUND;
    const wall = ((performance.now() - started) * 1000) / n;
    const pg = ((postgresCpuMs() - pgBefore) * 1000) / n;
    const own = process.cpuUsage(ownBefore);
    console.log(
      `  run ${run}: wall ${wall.toFixed(1)} µs, postgres CPU ${pg.toFixed(1)} µs, this process CPU ${((own.user + own.system) / n).toFixed(1)} µs`,
    );
  }
} finally {
  await db.handle.close();
  await db.drop();
}
