import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDb, migrate, type DbHandle } from '../src/db/create-db.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  handle: DbHandle;
  dataDir: string;
  /** Environment for a Signet process using this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh database: a SQLite file in a temp dir, or a new PostgreSQL database next to `url`. */
export async function openBenchDatabase(
  kind: 'sqlite' | 'postgres',
  url?: string,
): Promise<BenchDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-'));
  if (kind === 'sqlite') {
    const handle = createDb({
      databaseUrl: undefined,
      sqliteFile: path.join(dataDir, 'signet.db'),
    });
    await migrate(handle.db);
    return {
      name: kind,
      handle,
      dataDir,
      env: { DATA_DIR: dataDir },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const dbName = `signet_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const u = new URL(url!);
  u.pathname = `/${dbName}`;
  const handle = createDb({ databaseUrl: u.toString(), sqliteFile: '' });
  await migrate(handle.db);
  return {
    name: kind,
    handle,
    dataDir,
    env: { DATA_DIR: dataDir, DATABASE_URL: u.toString() },
    drop: async () => {
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`drop database if exists ${dbName} with (force)`);
      await a.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RunningProcess {
  child: ChildProcess;
  port: number;
  url: string;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`process exited with ${child.exitCode} before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on ${port} within ${timeoutMs} ms`);
}

function track(child: ChildProcess, port: number): RunningProcess {
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  child.on('exit', (code) => {
    if (code && code !== 0 && code !== 143)
      process.stderr.write(`child on ${port} exited ${code}: ${stderr}\n`);
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `signet serve` in its own process, so the load generator does not share its event loop. */
export async function startSignet(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  /** Another checkout of Signet to run (bench/first-paint.ts runs an older commit beside this one). */
  root = ROOT,
): Promise<RunningProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/signet.js'), 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production', // no bootstrap key; the bench seeds its own organization
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
      // Production requires one; a fixed one for the bench's throwaway databases.
      SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789abcdef',
      ...env,
    },
    stdio: ['ignore', process.env.BENCH_STDOUT ? 'inherit' : 'ignore', 'pipe'],
  });
  const proc = track(child, port);
  try {
    await waitForPort(port, child);
  } catch (err) {
    // A server that did not listen in time is not left running behind the bench.
    await proc.stop();
    throw err;
  }
  return proc;
}

/** The naive reference implementation (bench/naive.ts) on the same database. */
export async function startNaive(env: Record<string, string>): Promise<RunningProcess> {
  const port = await freePort();
  const target = env.DATABASE_URL
    ? { DATABASE_URL: env.DATABASE_URL }
    : { SQLITE_FILE: path.join(env.DATA_DIR, 'signet.db') };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/naive.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), NODE_ENV: 'production', ...target },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const proc = track(child, port);
  await waitForPort(port, child);
  return proc;
}

/** The baseline: bare node:http answering a fixed JSON body of `bytes` bytes. */
export async function startBaseline(bytes: number): Promise<RunningProcess> {
  const port = await freePort();
  const script = `
    const body = Buffer.from(JSON.stringify({ data: 'x'.repeat(Math.max(0, ${bytes} - 12)) }));
    require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
    }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  const proc = track(child, port);
  await waitForPort(port, child);
  return proc;
}

export interface LoadResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

type LoadOptions = {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
};

const toAutocannon = (o: LoadOptions) => ({
  url: o.url,
  method: o.method ?? 'GET',
  headers: o.headers,
  body: o.body,
  connections: o.connections ?? 50,
});

/**
 * Loads two servers in turns: after an unmeasured warm-up of each (the JIT optimizes both before
 * the figures count), `rounds` rounds of `durationSec / rounds` seconds on one, then on the
 * other. Taking turns keeps what else the machine does (its other tenants, the kernel writing
 * back) from landing on one side of the comparison only. Requests per second are over all
 * rounds; p50 is the rounds' median, p99 their worst.
 */
export async function loadInTurns(
  a: LoadOptions,
  b: LoadOptions,
  options: { durationSec?: number; rounds?: number } = {},
): Promise<[LoadResult, LoadResult]> {
  const warmup = Number(process.env.BENCH_WARMUP ?? 2);
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 5);
  const each = (options.durationSec ?? Number(process.env.BENCH_DURATION ?? 10)) / rounds;
  const runs: [autocannon.Result[], autocannon.Result[]] = [[], []];
  for (const side of [a, b]) await autocannon({ ...toAutocannon(side), duration: warmup });
  for (let i = 0; i < rounds; i++) {
    runs[0].push(await autocannon({ ...toAutocannon(a), duration: each }));
    runs[1].push(await autocannon({ ...toAutocannon(b), duration: each }));
  }
  const summary = (results: autocannon.Result[]): LoadResult => ({
    reqPerSec:
      results.reduce((n, r) => n + r.requests.total, 0) /
      results.reduce((n, r) => n + r.duration, 0),
    p50Ms: percentile(
      results.map((r) => r.latency.p50),
      50,
    ),
    p99Ms: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
  });
  return [summary(runs[0]), summary(runs[1])];
}

/** Resident set size of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
