/**
 * `npm run bench [-- scenario …]`: loads Signet with autocannon from this machine and prints each
 * figure next to a baseline measured in the same run (bare node:http answering a JSON body of
 * the same size, same connections and duration, loaded in turns with Signet). Writes bench/results/latest.json and an SVG chart.
 * PostgreSQL runs too when BENCH_DATABASE_URL is set.
 */
import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedDocuments, type Seeded } from './seed.ts';
import { loadInTurns, openBenchDatabase, percentile, ROOT, startBaseline, startSignet, type BenchDatabase, type RunningProcess } from './harness.ts';
import { writeChart } from './chart.ts';
import { extraScenarios } from './scenarios.ts';

export interface ScenarioResult {
  ratio?: number | null;
  reqPerSec?: number;
  baselineReqPerSec?: number;
  p50Ms?: number;
  p99Ms?: number;
  database: string;
  goal: string;
  /** The scenario's own headline figures, for the table (throughput scenarios have the columns). */
  summary?: string;
  [extra: string]: unknown;
}

export interface Context {
  db: BenchDatabase;
  seeded: Seeded;
  server: RunningProcess;
  auth: Record<string, string>;
}

type Scenario = { seed: number; /** Runs on its own SQLite database, once. */ sqliteOnly?: boolean; run: (ctx: Context) => Promise<Omit<ScenarioResult, 'database'>> };

async function bodySize(url: string, init: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return Buffer.byteLength(text);
}

/** Loads `url` on Signet and the baseline (a body of the same size) in turns, and compares. */
async function versusBaseline(ctx: Context, options: { path: string; method?: 'GET' | 'POST'; body?: string }, goal: string) {
  const url = `${ctx.server.url}${options.path}`;
  const init = { method: options.method ?? 'GET', headers: ctx.auth, body: options.body };
  const size = await bodySize(url, init);
  const baselineServer = await startBaseline(size);
  try {
    const [signet, baseline] = await loadInTurns(
      { url, method: options.method, headers: ctx.auth, body: options.body },
      { url: baselineServer.url, method: options.method, headers: ctx.auth, body: options.body },
    );
    if (signet.non2xx > 0 || signet.errors > 0) console.warn(`  ! ${signet.non2xx} non-2xx and ${signet.errors} errors under load`);
    return {
      ratio: Number((signet.reqPerSec / baseline.reqPerSec).toFixed(3)),
      reqPerSec: Math.round(signet.reqPerSec),
      baselineReqPerSec: Math.round(baseline.reqPerSec),
      p50Ms: signet.p50Ms,
      p99Ms: signet.p99Ms,
      responseBytes: size,
      summary: `${Math.round(signet.reqPerSec)} req/s vs ${Math.round(baseline.reqPerSec)} bare = ${(signet.reqPerSec / baseline.reqPerSec).toFixed(2)}; p99 ${signet.p99Ms} ms`,
      goal,
    };
  } finally {
    await baselineServer.stop();
  }
}

async function timed(url: string, headers: Record<string, string>) {
  const started = process.hrtime.bigint();
  const res = await fetch(url, { headers });
  const body = (await res.json()) as { meta: { nextCursor: string | null }; data: unknown[] };
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, body };
}

const SMALL = 100_000;
const LARGE = 1_000_000;

const scenarios: Record<string, Scenario> = {
  'get-by-id': {
    seed: SMALL,
    run: (ctx) =>
      versusBaseline(ctx, { path: `/api/v1/documents/${ctx.seeded.detailId}` }, '>= 0.40 x baseline; p99 <= 20 ms at 50 connections'),
  },
  list: {
    seed: SMALL,
    run: (ctx) => versusBaseline(ctx, { path: '/api/v1/documents?limit=25' }, '>= 0.25 x baseline'),
  },
  create: {
    seed: SMALL,
    run: (ctx) =>
      versusBaseline(
        ctx,
        { path: '/api/v1/documents', method: 'POST', body: JSON.stringify({ name: 'Benchmark agreement', message: 'Please sign' }) },
        '>= 0.15 x baseline',
      ),
  },
  'deep-pagination': {
    seed: LARGE,
    async run(ctx) {
      const pages: number[] = [];
      let cursor: string | null = null;
      const started = Date.now();
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const { ms, body } = await timed(`${ctx.server.url}/api/v1/documents?limit=100${q}`, ctx.auth);
        pages.push(ms);
        cursor = body.meta.nextCursor;
      } while (cursor);
      const head = pages.slice(0, 20);
      const tail = pages.slice(-20);
      const first = percentile(head, 50);
      const last = percentile(tail, 50);
      return {
        pages: pages.length,
        totalSeconds: Number(((Date.now() - started) / 1000).toFixed(1)),
        firstPageMs: Number(first.toFixed(2)),
        lastPageMs: Number(last.toFixed(2)),
        ratio: Number((last / first).toFixed(3)),
        summary: `${pages.length} pages in ${((Date.now() - started) / 1000).toFixed(1)} s; first ${first.toFixed(1)} ms, last ${last.toFixed(1)} ms`,
        goal: 'last page <= 1.5 x first page (ratio = last/first, median of 20 pages each)',
      };
    },
  },
  search: {
    seed: LARGE,
    async run(ctx) {
      const terms = ['#12345', 'lease offer #9', 'amendment', 'quote #77', 'renewal order', 'no-such-document', 'NDA #5000', 'policy'];
      const times: number[] = [];
      for (let round = 0; round < 5; round++) {
        for (const term of terms) {
          // A limit of its own per round: each query is answered by the database, not from the
          // read cache (which would answer a repeated URL from memory).
          const { ms } = await timed(`${ctx.server.url}/api/v1/documents?limit=${25 - round}&search=${encodeURIComponent(term)}`, ctx.auth);
          times.push(ms);
        }
      }
      return {
        p50Ms: Number(percentile(times, 50).toFixed(2)),
        p99Ms: Number(percentile(times, 99).toFixed(2)),
        queries: times.length,
        summary: `p50 ${percentile(times, 50).toFixed(1)} ms over ${times.length} queries`,
        goal: 'p50 printed; < 50 ms on PostgreSQL',
      };
    },
  },
  ...extraScenarios,
};

async function main() {
  // A scenario of its own process and database (bench/bulk-send.ts), not a load of the seeded API.
  if (process.argv.slice(2).includes('bulk-send')) return (await import('./bulk-send.ts')).bulkSendBench();
  const startedAt = new Date().toISOString();
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
  for (const n of names) if (!scenarios[n]) throw new Error(`Unknown scenario ${n}; known: ${Object.keys(scenarios).join(', ')}`);
  const databases: ('sqlite' | 'postgres')[] = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL) databases.push('postgres');

  const results: Record<string, ScenarioResult> = {};
  for (const kind of databases) {
    const needed = Math.max(1, ...names.filter((n) => kind === 'sqlite' || !scenarios[n].sqliteOnly).map((n) => scenarios[n].seed));
    const db = await openBenchDatabase(kind, process.env.BENCH_DATABASE_URL);
    try {
      console.log(`\n${kind}: seeding ${needed.toLocaleString('en')} documents…`);
      const seeded = await seedDocuments(db.handle.db, needed, console.log);
      // PostgreSQL would otherwise still be checkpointing the load (spread over minutes) while the
      // scenarios run, its writes competing with theirs (uploads write 50 MB files).
      if (kind === 'postgres') await sql`checkpoint`.execute(db.handle.db);
      await db.handle.close();
      // Closing SQLite checkpoints the load into the database file: a gigabyte of dirty pages the
      // kernel would write back during the first scenarios (and not during their baselines).
      execFileSync('sync');
      const server = await startSignet(db.env, process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : []);
      try {
        const ctx: Context = { db, seeded, server, auth: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' } };
        for (const name of names) {
          if (kind !== 'sqlite' && scenarios[name].sqliteOnly) continue;
          process.stdout.write(`  ${name}… `);
          const r = await scenarios[name].run(ctx);
          const key = databases.length > 1 ? `${name}@${kind}` : name;
          results[key] = { ...r, database: kind } as ScenarioResult;
          console.log(JSON.stringify(r));
        }
      } finally {
        await server.stop();
      }
    } finally {
      await db.drop();
    }
  }

  const report = {
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '', memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
    startedAt,
    scenarios: results,
  };
  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeChart(report, path.join(dir, 'latest.svg'));
  printTable(results);
}

function printTable(results: Record<string, ScenarioResult>) {
  const rows = Object.entries(results).map(([name, r]) => [
    name,
    r.database,
    r.reqPerSec !== undefined ? String(r.reqPerSec) : '',
    r.baselineReqPerSec !== undefined ? String(r.baselineReqPerSec) : '',
    r.ratio !== undefined && r.ratio !== null ? String(r.ratio) : '',
    r.p50Ms !== undefined ? String(r.p50Ms) : '',
    r.p99Ms !== undefined ? String(r.p99Ms) : '',
    r.summary ?? '',
    r.goal,
  ]);
  const header = ['scenario', 'db', 'req/s', 'baseline', 'ratio', 'p50 ms', 'p99 ms', 'measured', 'goal'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
  console.log('\nWritten to bench/results/latest.json and bench/results/latest.svg');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
