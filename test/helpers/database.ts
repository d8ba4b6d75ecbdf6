import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, migrate, type DbHandle } from '../../src/db/create-db.ts';

/** PostgreSQL when TEST_DATABASE_URL is set (a fresh database per call), SQLite in a temp dir otherwise. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const dialectName = testDatabaseUrl ? 'postgres' : 'sqlite';

export interface TestDatabase {
  handle: DbHandle;
  url: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

/** `migrated: false` leaves the database empty, for servers that migrate it on start. */
export async function createTestDatabase(
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-test-'));
  if (!testDatabaseUrl) {
    const handle = createDb({
      databaseUrl: undefined,
      sqliteFile: path.join(dataDir, 'signet.db'),
    });
    if (migrated) await migrate(handle.db);
    return {
      handle,
      url: undefined,
      dataDir,
      drop: async () => {
        await handle.close().catch(() => undefined);
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `signet_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  // A migrated database is a copy of the one the run migrated once (test/helpers/global-setup.ts).
  const template = migrated ? inject('pgTemplate') : undefined;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  // With the change feed, as the server runs: the read and key caches are on for PostgreSQL too.
  const handle = createDb({
    databaseUrl: url.toString(),
    sqliteFile: '',
    poolSize: 5,
    watchChanges: true,
  });
  if (migrated && !template) await migrate(handle.db);
  return {
    handle,
    url: url.toString(),
    dataDir,
    drop: async () => {
      await handle.close().catch(() => undefined);
      const a = new pg.Client({ connectionString: testDatabaseUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
