import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDb, migrate } from '../../src/db/create-db.ts';
import { createTestDatabase, dialectName, type TestDatabase } from '../helpers/database.ts';
import { UPGRADE_SECRET_KEY, answersToRecord, type Recorded } from './recorded.ts';

/*
 * A database written by the previous release (test/upgrade/RELEASE) through its own migrations and
 * API, with its files, is migrated forward by today's code, which must then give every answer the
 * release gave: lists, details, audit logs, downloads, webhooks and their deliveries (made and
 * queued), templates, the campaign and its submission, the bulk send and its documents.
 * Fields added since may appear; nothing the release answered may change. Built by
 * `npm run upgrade:fixtures` (scripts/upgrade-fixtures.ts), per database.
 */

const FIXTURES = fileURLToPath(new URL(`./fixtures/${dialectName}/`, import.meta.url));
const expected = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8'),
) as Recorded & {
  key: string;
};

let database: TestDatabase;
let app: FastifyInstance;
let migrated: string[];

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  fs.cpSync(path.join(FIXTURES, 'files'), path.join(database.dataDir, 'files'), {
    recursive: true,
  });
  if (database.url) {
    // pg_dump's plain SQL; its psql commands (\restrict) are not SQL. One session of its own: the
    // dump empties search_path for the session that runs it.
    const sqlText = fs
      .readFileSync(path.join(FIXTURES, 'dump.sql'), 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(sqlText);
    await client.end();
  } else {
    await database.handle.close();
    fs.copyFileSync(path.join(FIXTURES, 'signet.db'), path.join(database.dataDir, 'signet.db'));
    database.handle = createDb({
      databaseUrl: undefined,
      sqliteFile: path.join(database.dataDir, 'signet.db'),
    });
  }
  migrated = await migrate(database.handle.db);
  app = await buildApp({
    config: loadConfig({
      DATA_DIR: database.dataDir,
      SECRET_KEY: UPGRADE_SECRET_KEY,
      PUBLIC_URL: 'http://localhost:3000',
      LOG_LEVEL: 'silent',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    }),
    database: database.handle,
  });
  await app.ready();
}, 120_000);

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

const get = async (method: string, url: string) => {
  const res = await app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${expected.key}` },
  });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

describe(`a database written by release ${fs.readFileSync(new URL('./RELEASE', import.meta.url), 'utf8').trim()} (${dialectName})`, () => {
  it('migrates forward', () => {
    expect(migrated.length).toBeGreaterThan(0);
  });

  it('answers every question as the release did', async () => {
    for (const [url, answer] of Object.entries(expected.answers))
      expect(await get('GET', url), url).toMatchObject(answer as object);
  });

  it('serves every file as the release did, and is asked what the release was asked', async () => {
    const now = await answersToRecord(get, async (url) => {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${expected.key}` },
      });
      expect(res.statusCode, url).toBe(200);
      return res.rawPayload;
    });
    expect(now.downloads).toEqual(expected.downloads);
    expect(Object.keys(now.answers).sort()).toEqual(Object.keys(expected.answers).sort());
  });
});
