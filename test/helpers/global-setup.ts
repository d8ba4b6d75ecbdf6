import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { buildIfStale } from '../../scripts/build.js';
import { createDb, migrate } from '../../src/db/create-db.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** On PostgreSQL, a migrated database that createTestDatabase copies (test/helpers/database.ts). */
    pgTemplate: string | undefined;
  }
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/*
 * Tests that start `signet` as a child process run bin/signet.js, which runs dist/: built once
 * here, before any test file starts, rather than in the first of those children (and in several
 * at once). On PostgreSQL, the migrations run once, into a template database: a test database is
 * then a copy of it (about 0.3 s), not a new database migrated (2.5-4 s on a loaded 2-core
 * machine, for each of the hundreds a run makes).
 */
export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  await buildIfStale();
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', undefined);
    return undefined;
  }
  const name = `signet_template_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin(url, (c) => c.query(`create database ${name}`));
  const target = new URL(url);
  target.pathname = `/${name}`;
  const handle = createDb({ databaseUrl: target.toString(), sqliteFile: '', poolSize: 1 });
  await migrate(handle.db);
  await handle.close();
  project.provide('pgTemplate', name);
  return async () => {
    await admin(url, (c) => c.query(`drop database if exists ${name} with (force)`));
  };
}
