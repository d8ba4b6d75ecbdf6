import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import type { DbHandle } from '../../src/db/create-db.ts';

/*
 * What openDatabase sets up beyond the connection itself: on SQLite the server's longer WAL
 * (PERF_OFF=long-wal leaves SQLite's default; the CLI keeps the default), and on PostgreSQL the
 * pool's size from DATABASE_POOL_SIZE.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-open-db-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const walPages = async (handle: DbHandle) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db)).rows[0]
    .wal_autocheckpoint;

describe('SQLite: the server checkpoints its WAL past 10,000 pages', () => {
  it('sets 10,000 for the server, leaves 1,000 for the CLI and with PERF_OFF=long-wal', async () => {
    const env = { DATA_DIR: dir };
    const server = openDatabase(loadConfig(env), { server: true });
    const off = openDatabase(loadConfig({ ...env, PERF_OFF: 'long-wal' }), { server: true });
    const cli = openDatabase(loadConfig(env));
    try {
      expect(await walPages(server)).toBe(10_000);
      expect(await walPages(off)).toBe(1_000);
      expect(await walPages(cli)).toBe(1_000);
    } finally {
      await Promise.all([server.close(), off.close(), cli.close()]);
    }
  });

  it('checkpoints once the WAL is past that, and closing leaves no WAL behind', async () => {
    const env = { DATA_DIR: path.join(dir, 'commits') };
    const handle = openDatabase(loadConfig(env), { server: true });
    const file = path.join(env.DATA_DIR, 'signet.db');
    const walBytes = () => fs.statSync(`${file}-wal`).size;
    try {
      await sql`create table items (id integer primary key, body text not null)`.execute(handle.db);
      // 2 KB rows, one commit each: about 12,000 pages of WAL written in all.
      const body = 'x'.repeat(2000);
      let largest = 0;
      for (let i = 0; i < 12_000; i++) {
        await sql`insert into items (body) values (${body})`.execute(handle.db);
        if (i % 100 === 0) largest = Math.max(largest, walBytes());
      }
      // Past 1,000 pages (4 MB) without a checkpoint; never far past 10,000 (40 MB).
      expect(largest).toBeGreaterThan(8 * 2 ** 20);
      expect(largest).toBeLessThan(45 * 2 ** 20);
    } finally {
      await handle.close();
    }
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('is 10 unless set, 1 to 100', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
    for (const bad of ['0', '101', 'ten', '-1']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: bad })).toThrow(/DATABASE_POOL_SIZE/);
    }
  });
});
