import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { freePort } from '../helpers/child-server.ts';
import { testDatabaseUrl } from '../helpers/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/signet.js');

/** Where one CLI "installation" keeps its state: a data directory, plus a fresh PostgreSQL database when testing on PostgreSQL. */
export interface Installation {
  dataDir: string;
  /** Unset on SQLite (the CLI then uses `$DATA_DIR/signet.db`). */
  databaseUrl: string | undefined;
  /** Opens the installation's database from the test, e.g. to inspect tables. */
  open(): DbHandle;
  remove(): Promise<void>;
}

/** An empty installation: a new temporary directory and, on PostgreSQL, a new empty (unmigrated) database. */
export async function newInstallation(): Promise<Installation> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-cli-'));
  let databaseUrl: string | undefined;
  let name: string | undefined;
  if (testDatabaseUrl) {
    name = `signet_cli_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  return {
    dataDir,
    databaseUrl,
    open: () => createDb({ databaseUrl, sqliteFile: path.join(dataDir, 'signet.db'), poolSize: 1 }),
    remove: async () => {
      if (name) {
        const admin = new pg.Client({ connectionString: testDatabaseUrl });
        await admin.connect();
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment of a CLI run: only what the test sets, never the test runner's own variables. */
function envFor(inst: Installation, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: os.tmpdir(),
    DATA_DIR: inst.dataDir,
    ...(inst.databaseUrl ? { DATABASE_URL: inst.databaseUrl } : {}),
    ...extra,
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `signet …args` to completion. */
export function runCli(
  inst: Installation,
  args: string[],
  extra: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(inst, extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** Everything written so far. */
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** `signet serve` on a free port of 127.0.0.1; resolves once it logs that it listens. */
export async function startServe(
  inst: Installation,
  extra: Record<string, string> = {},
): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: envFor(inst, { PORT: String(port), HOST: '127.0.0.1', ...extra }),
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not listen within 60 s:\n${stdout}\n${stderr}`)),
      60_000,
    );
    const check = () => {
      if (stdout.includes('Server listening at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => ({ stdout, stderr }),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Kills servers a failed test left running (only the ones this file started). */
export function killLeftovers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
