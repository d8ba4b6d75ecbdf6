/**
 * `npm run bench -- backup`: `signet backup` and `signet restore` of the bench database (1,000,000
 * documents; BENCH_SCALE shrinks it), on SQLite and, with BENCH_DATABASE_URL, on PostgreSQL, plus
 * SQLite → PostgreSQL; each command in its own process as an operator runs it. Prints, in one
 * run: each command's time, throughput (MB of database per second) and peak RSS; the API's p99
 * (`GET /api/v1/documents`, 10 requests a second) on the source while the backup runs next to
 * its p99 with nothing else running; and the time of migrations of this release (0016a on, or the names
 * in BENCH_MIGRATIONS) run down and up again on the seeded database. Goals: backup ≥ 50 MB/s,
 * RSS < 300 MB, p99 during backup ≤ 2 × without.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { createDb, migrations } from '../src/db/create-db.ts';
import { openBenchDatabase, percentile, ROOT, startSignet, type BenchDatabase } from './harness.ts';
import { seedOrganizations, targetOf } from './seed.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const DOCUMENTS = Math.round(1_000_000 * SCALE);
const ORGS = Math.max(10, Math.round(1000 * SCALE));
const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789abcdef';
const mb = (bytes: number) => bytes / 1e6;
const round = (n: number, d = 1) => Number(n.toFixed(d));

interface Command {
  /** As the command reports it (without the process's start), or the wall time. */
  seconds: number;
  peakRssMb: number;
  output: string;
}

/** Runs `signet …args` in its own process, sampling its peak resident memory (VmHWM). */
function signet(args: string[], env: Record<string, string>): Promise<Command> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/signet.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SECRET_KEY, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let peak = 0;
    const sample = setInterval(() => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024);
      } catch {
        /* exited */
      }
    }, 50);
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(sample);
      if (code !== 0) return reject(new Error(`signet ${args.join(' ')} exited ${code}:\n${out}`));
      resolve({
        seconds: (performance.now() - started) / 1000,
        peakRssMb: round(mb(peak)),
        output: out,
      });
    });
  });
}

/**
 * Latencies of `GET /api/v1/documents`, one request started every 100 ms (10 a second, whether
 * or not the previous answered: an open loop, as users arrive), until `until` resolves. A closed
 * loop at full speed would measure how much CPU it takes from the backup on a 2-core machine.
 */
async function probe(url: string, key: string, until: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let done = false;
  void until.finally(() => {
    done = true;
  });
  while (!done) {
    const t0 = performance.now();
    const request: Promise<void> = fetch(`${url}/api/v1/documents?limit=25`, {
      headers: { authorization: `Bearer ${key}` },
    })
      .then((res) => res.arrayBuffer())
      .then(() => void times.push(performance.now() - t0))
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
    await new Promise((r) => setTimeout(r, 100));
  }
  await Promise.all(inFlight);
  return times;
}

async function databaseBytes(db: BenchDatabase): Promise<number> {
  if (db.name === 'sqlite') {
    const file = path.join(db.dataDir, 'signet.db');
    return (
      fs.statSync(file).size + (fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0)
    );
  }
  const client = new pg.Client({ connectionString: db.env.DATABASE_URL });
  await client.connect();
  const { rows } = await client.query('select pg_database_size(current_database()) as n');
  await client.end();
  return Number(rows[0].n);
}

/** A new empty PostgreSQL database (dropped by the returned function). */
async function newPostgres(adminUrl: string) {
  const name = `signet_bench_restore_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** This work's migrations run down then up on the seeded database; the slowest. */
async function timeMigrations(db: BenchDatabase) {
  const names =
    process.env.BENCH_MIGRATIONS?.split(',') ?? Object.keys(migrations).filter((n) => n >= '0016');
  const handle = createDb({
    databaseUrl: db.env.DATABASE_URL,
    sqliteFile: path.join(db.dataDir, 'signet.db'),
  });
  const timed: { name: string; ms: number }[] = [];
  try {
    for (const name of names) {
      const m = migrations[name];
      if (!m?.down) continue;
      await m.down(handle.db);
      const t0 = performance.now();
      await m.up(handle.db);
      timed.push({ name, ms: round(performance.now() - t0) });
    }
    if (db.name === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(handle.db);
  } finally {
    await handle.close();
  }
  return timed.sort((a, b) => b.ms - a.ms);
}

export async function backupBench(): Promise<void> {
  const kinds: ('sqlite' | 'postgres')[] = ['sqlite'];
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (adminUrl) kinds.push('postgres');
  const results: Record<string, unknown> = { documents: DOCUMENTS, loadAverage: os.loadavg() };
  let sqliteBackup: string | null = null;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-backup-'));
  try {
    for (const kind of kinds) {
      const db = await openBenchDatabase(kind, adminUrl);
      try {
        console.log(
          `\n${kind}: seeding ${ORGS} organizations, ${DOCUMENTS.toLocaleString('en')} documents…`,
        );
        const seeded = await seedOrganizations(
          db.handle.db,
          targetOf(db),
          ORGS,
          DOCUMENTS,
          console.log,
        );
        await db.handle.close();
        const migrationTimes = await timeMigrations(db);
        const size = await databaseBytes(db);
        // The backup alone (nothing else running), then again while the API answers.
        const alone = await signet(
          ['backup', '--to', path.join(work, `${kind}-alone`), '--json'],
          db.env,
        );
        fs.rmSync(path.join(work, `${kind}-alone`), { recursive: true, force: true });
        const server = await startSignet(db.env);
        let backup: Command;
        let quiet: number[];
        let during: number[];
        const to = path.join(work, `${kind}-backup`);
        try {
          // Warmed up first (compiled routes, prepared statements), then measured alone.
          await probe(server.url, seeded.key, new Promise((r) => setTimeout(r, 5_000)));
          quiet = await probe(server.url, seeded.key, new Promise((r) => setTimeout(r, 10_000)));
          const running = signet(['backup', '--to', to, '--json'], db.env);
          during = await probe(
            server.url,
            seeded.key,
            running.catch(() => undefined),
          );
          backup = await running;
        } finally {
          await server.stop();
        }
        if (kind === 'sqlite') sqliteBackup = to;
        const target =
          kind === 'sqlite'
            ? { env: { DATA_DIR: path.join(work, 'sqlite-restored') }, drop: async () => {} }
            : await newPostgres(String(adminUrl)).then((p) => ({
                env: { DATA_DIR: path.join(work, 'pg-restored'), DATABASE_URL: p.url },
                drop: p.drop,
              }));
        const restore = await signet(['restore', '--from', to, '--json'], target.env);
        await target.drop();
        const p99 = round(percentile(quiet, 99));
        const p99During = round(percentile(during, 99));
        results[kind] = {
          databaseMb: round(mb(size)),
          backupAlone: {
            seconds: round(alone.seconds, 2),
            mbPerSecond: round(mb(size) / alone.seconds),
            peakRssMb: alone.peakRssMb,
          },
          backup: {
            seconds: round(backup.seconds, 2),
            mbPerSecond: round(mb(size) / backup.seconds),
            peakRssMb: backup.peakRssMb,
          },
          restore: {
            seconds: round(restore.seconds, 2),
            mbPerSecond: round(mb(size) / restore.seconds),
            peakRssMb: restore.peakRssMb,
          },
          apiP99Ms: {
            quiet: p99,
            duringBackup: p99During,
            ratio: round(p99During / p99, 2),
            requests: [quiet.length, during.length],
          },
          migrations: migrationTimes,
        };
        console.log(JSON.stringify(results[kind], null, 1));
      } finally {
        await db.drop();
      }
    }
    if (adminUrl && sqliteBackup) {
      const p = await newPostgres(adminUrl);
      try {
        const move = await signet(['restore', '--from', sqliteBackup, '--json'], {
          DATA_DIR: path.join(work, 'moved'),
          DATABASE_URL: p.url,
        });
        results.sqliteToPostgres = { seconds: round(move.seconds, 2), peakRssMb: move.peakRssMb };
        console.log('sqlite → postgres', JSON.stringify(results.sqliteToPostgres));
      } finally {
        await p.drop();
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/backup.json'),
    `${JSON.stringify(results, null, 1)}\n`,
  );
  console.log('\nwritten to bench/results/backup.json');
}
