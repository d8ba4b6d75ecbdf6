/**
 * `npm run bench [-- scenario …]`: loads Signet with autocannon from this machine and prints each
 * figure next to references measured in the same run, loaded in turns with Signet: bare
 * node:http answering a JSON body of the same size, and the naive implementation (bench/naive.ts)
 * on the same database. Writes bench/results/latest.json and an SVG chart. PostgreSQL runs too
 * when BENCH_DATABASE_URL is set.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seedOrganizations, targetOf, type Seeded } from './seed.ts';
import {
  loadInTurns,
  openBenchDatabase,
  ROOT,
  startBaseline,
  startNaive,
  startSignet,
  type BenchDatabase,
  type RunningProcess,
} from './harness.ts';
import { writeChart } from './chart.ts';
import { extraScenarios } from './scenarios.ts';
import type { Context, ScenarioResult } from './context.ts';
import { CREATE_UNDER_LOAD, loadMixInTurns, READ_MIX, type Stream } from './mix.ts';
import { poolSizes } from './pool-sizes.ts';

type Scenario = {
  seed: number /** Runs on its own SQLite database, once. */;
  sqliteOnly?: boolean;
  run: (ctx: Context) => Promise<Omit<ScenarioResult, 'database'>>;
};

async function bodySize(url: string, init: RequestInit): Promise<number> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return Buffer.byteLength(text);
}

/** Loads `url` on Signet and the baseline (a body of the same size) in turns, and compares. */
async function versusBaseline(
  ctx: Context,
  options: { path: string; method?: 'GET' | 'POST'; body?: string },
  goal: string,
) {
  const url = `${ctx.server.url}${options.path}`;
  const init = { method: options.method ?? 'GET', headers: ctx.auth, body: options.body };
  const size = await bodySize(url, init);
  const baselineServer = await startBaseline(size);
  try {
    const [signet, baseline] = await loadInTurns(
      { url, method: options.method, headers: ctx.auth, body: options.body },
      { url: baselineServer.url, method: options.method, headers: ctx.auth, body: options.body },
    );
    if (signet.non2xx > 0 || signet.errors > 0)
      console.warn(`  ! ${signet.non2xx} non-2xx and ${signet.errors} errors under load`);
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

/** Organizations and documents of the realistic scenarios (BENCH_SCALE shrinks both, e.g. 0.1). */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ORGS = Math.max(10, Math.round(1000 * SCALE));
const LARGE = Math.round(1_000_000 * SCALE);

/** The environment of a Signet process with `off` switched off (config.ts PERF_OFF). */
const switchedOff = (ctx: Context, off: string) => ({ ...ctx.db.env, PERF_OFF: off });

/**
 * Signet, the naive implementation and the bare server under the same streams, in turns. The
 * bare server answers every request with a body of the mix's mean response size.
 */
async function versusNaive(
  ctx: Context,
  streams: Stream[],
  goal: string,
): Promise<Omit<ScenarioResult, 'database'>> {
  const naive = await startNaive(ctx.db.env);
  const bare = await startBaseline(await meanBodySize(ctx, streams));
  try {
    const [signet, n, b] = await loadMixInTurns(
      [
        { name: 'signet', url: ctx.server.url },
        { name: 'naive', url: naive.url },
        { name: 'bare', url: bare.url },
      ],
      ctx.seeded,
      streams,
    );
    for (const [name, r] of [
      ['signet', signet],
      ['naive', n],
    ] as const)
      if (r.non2xx > 0 || r.errors > 0)
        console.warn(`  ! ${name}: ${r.non2xx} non-2xx and ${r.errors} errors under load`);
    const p99 = Object.entries(signet.classes)
      .map(([c, f]) => `${c} ${f.p99Ms}`)
      .join(', ');
    const creates = signet.classes.create;
    return {
      ratio: round3(signet.reqPerSec / b.reqPerSec),
      naiveRatio: round3(signet.reqPerSec / n.reqPerSec),
      reqPerSec: Math.round(signet.reqPerSec),
      naiveReqPerSec: Math.round(n.reqPerSec),
      baselineReqPerSec: Math.round(b.reqPerSec),
      p99Ms: Math.max(...Object.values(signet.classes).map((f) => f.p99Ms)),
      classes: signet.classes,
      naiveClasses: n.classes,
      newConnections: signet.newConnections,
      summary:
        `${Math.round(signet.reqPerSec)} req/s = ${(signet.reqPerSec / b.reqPerSec).toFixed(3)} bare, ${(signet.reqPerSec / n.reqPerSec).toFixed(2)} naive; p99 ms ${p99}` +
        (creates && streams.length > 1
          ? `; creates ${creates.perSec}/s (naive ${n.classes.create?.perSec ?? 0}/s)`
          : '') +
        `; first request of a new connection p99 ${signet.newConnections.p99Ms} ms (naive ${n.newConnections.p99Ms})`,
      goal,
    };
  } finally {
    await Promise.all([naive.stop(), bare.stop()]);
  }
}

const round3 = (n: number) => Number(n.toFixed(3));

/** The mean response size of the streams' requests, from a sample of each class. */
async function meanBodySize(ctx: Context, streams: Stream[]): Promise<number> {
  const org = ctx.seeded.orgs[0];
  const auth = { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' };
  const sizes = {
    detail: await bodySize(`${ctx.server.url}/api/v1/documents/${ctx.seeded.detailId}`, {
      headers: auth,
    }),
    list: await bodySize(`${ctx.server.url}/api/v1/documents?limit=25`, { headers: auth }),
    create: await bodySize(`${ctx.server.url}/api/v1/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Size probe' }),
    }),
  };
  let total = 0;
  let weight = 0;
  for (const s of streams) {
    for (const c of ['detail', 'list', 'create'] as const) {
      total += s.mix[c] * s.connections * sizes[c];
      weight += s.mix[c] * s.connections;
    }
  }
  return Math.round(total / weight);
}

/**
 * What each performance mechanism gains on read-mix: Signet as shipped against Signet with it
 * switched off (PERF_OFF), in turns, plus a second process as shipped (`control`): the gap
 * between the two identical servers is the run's noise floor.
 */
async function switches(ctx: Context): Promise<Omit<ScenarioResult, 'database'>> {
  const names =
    ctx.db.name === 'sqlite' ? [] : ['key-cache', 'batched-creates', 'named-statements'];
  const wanted = process.env.BENCH_SWITCHES ? process.env.BENCH_SWITCHES.split(',') : names;
  const variants = await Promise.all(
    ['control', ...names.filter((n) => wanted.includes(n))].map(async (off) => ({
      off,
      server: await startSignet(off === 'control' ? ctx.db.env : switchedOff(ctx, off)),
    })),
  );
  try {
    const results = await loadMixInTurns(
      [
        { name: 'all on', url: ctx.server.url },
        ...variants.map((v) => ({ name: v.off, url: v.server.url })),
      ],
      ctx.seeded,
      process.env.BENCH_SWITCHES_LOAD === 'create-under-load'
        ? CREATE_UNDER_LOAD
        : [{ mix: READ_MIX, connections: 50 }],
    );
    const on = results[0];
    const gains: Record<
      string,
      {
        gain: number;
        offReqPerSec: number;
        p99Ms: Record<string, number>;
        createsPerSec: number | undefined;
      }
    > = {};
    for (const [i, v] of variants.entries()) {
      const r = results[i + 1];
      gains[v.off] = {
        gain: round3(on.reqPerSec / r.reqPerSec - 1),
        offReqPerSec: Math.round(r.reqPerSec),
        p99Ms: Object.fromEntries(Object.entries(r.classes).map(([c, f]) => [c, f.p99Ms])),
        createsPerSec: r.classes.create?.perSec,
      };
    }
    return {
      reqPerSec: Math.round(on.reqPerSec),
      gains,
      summary:
        `all on: creates ${on.classes.create?.perSec ?? 0}/s, p99 ${on.classes.create?.p99Ms ?? 0} ms; ` +
        Object.entries(gains)
          .map(
            ([n, g]) =>
              `${n} off ${(g.gain * 100).toFixed(1)}% (creates ${g.createsPerSec ?? 0}/s, p99 ${g.p99Ms.create ?? 0} ms)`,
          )
          .join(', '),
      goal: `a mechanism stays only if it gains >= 10% (all on vs it off, ${process.env.BENCH_SWITCHES_LOAD ?? 'read-mix'}, in turns; control = a second identical server)`,
    };
  } finally {
    await Promise.all(variants.map((v) => v.server.stop()));
  }
}

const scenarios: Record<string, Scenario> = {
  'read-mix': {
    seed: LARGE,
    run: (ctx) =>
      versusNaive(
        ctx,
        [{ mix: READ_MIX, connections: 50 }],
        '>= 0.25 x bare (SQLite), >= 0.15 x bare (PostgreSQL), >= 1.5 x naive; p99 <= 25 ms per class',
      ),
  },
  'get-random': {
    seed: LARGE,
    run: (ctx) =>
      versusNaive(ctx, [{ mix: { detail: 1, list: 0, create: 0 }, connections: 50 }], 'printed'),
  },
  'list-random': {
    seed: LARGE,
    run: (ctx) =>
      versusNaive(ctx, [{ mix: { detail: 0, list: 1, create: 0 }, connections: 50 }], 'printed'),
  },
  'create-under-load': {
    seed: LARGE,
    run: (ctx) =>
      versusNaive(
        ctx,
        CREATE_UNDER_LOAD,
        '>= 1,000 creates/s with p99 <= 20 ms (SQLite); reads by 45 connections, creates by 5',
      ),
  },
  switches: { seed: LARGE, run: switches },
  'pool-sizes': { seed: LARGE, run: poolSizes },
  // Cache-hit figures: one URL again and again, no write anywhere. Not what users do.
  'get-by-id': {
    seed: LARGE,
    run: (ctx) =>
      versusBaseline(
        ctx,
        { path: `/api/v1/documents/${ctx.seeded.detailId}` },
        'cache-hit figure (one URL again and again)',
      ),
  },
  list: {
    seed: LARGE,
    run: (ctx) =>
      versusBaseline(
        ctx,
        { path: '/api/v1/documents?limit=25' },
        'cache-hit figure (one URL again and again)',
      ),
  },
  create: {
    seed: LARGE,
    run: (ctx) =>
      versusBaseline(
        ctx,
        {
          path: '/api/v1/documents',
          method: 'POST',
          body: JSON.stringify({ name: 'Benchmark agreement', message: 'Please sign' }),
        },
        'printed (one organization)',
      ),
  },
  ...extraScenarios,
};

async function main() {
  // A scenario of its own process and database (bench/bulk-send.ts), not a load of the seeded API.
  if (process.argv.slice(2).includes('bulk-send'))
    return (await import('./bulk-send.ts')).bulkSendBench();
  // Backup and restore commands against a seeded database (bench/backup.ts).
  if (process.argv.slice(2).includes('backup')) return (await import('./backup.ts')).backupBench();
  // Bombs against a server in its own process (bench/hostile.ts).
  if (process.argv.slice(2).includes('hostile')) return void (await import('./hostile.ts'));
  const startedAt = new Date().toISOString();
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
  for (const n of names)
    if (!scenarios[n])
      throw new Error(`Unknown scenario ${n}; known: ${Object.keys(scenarios).join(', ')}`);
  let databases: ('sqlite' | 'postgres')[] = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL) databases.push('postgres');
  // BENCH_ONLY=postgres (or sqlite): one of them.
  if (process.env.BENCH_ONLY) databases = databases.filter((d) => d === process.env.BENCH_ONLY);

  const results: Record<string, ScenarioResult> = {};
  for (const kind of databases) {
    const needed = Math.max(
      1,
      ...names
        .filter((n) => kind === 'sqlite' || !scenarios[n].sqliteOnly)
        .map((n) => scenarios[n].seed),
    );
    const db = await openBenchDatabase(kind, process.env.BENCH_DATABASE_URL);
    try {
      console.log(
        `\n${kind}: seeding ${ORGS} organizations, ${needed.toLocaleString('en')} documents…`,
      );
      const seeded = await seedOrganizations(db.handle.db, targetOf(db), ORGS, needed, console.log);
      await db.handle.close();
      // Closing SQLite checkpoints the load into the database file: a gigabyte of dirty pages the
      // kernel would write back during the first scenarios (and not during their baselines).
      execFileSync('sync');
      const server = await startSignet(
        db.env,
        process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
      );
      try {
        const ctx: Context = {
          db,
          seeded,
          server,
          auth: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
        };
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
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
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
  const header = [
    'scenario',
    'db',
    'req/s',
    'baseline',
    'ratio',
    'p50 ms',
    'p99 ms',
    'measured',
    'goal',
  ];
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
