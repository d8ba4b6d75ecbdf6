import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create-backup.ts';
import { restoreBackup } from '../../src/backup/restore-backup.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createDb, migrate } from '../../src/db/create-db.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import { newInstallation, type Installation } from '../cli/run-cli.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { KEY_A, tempDir } from './support.ts';

/*
 * Values survive a trip through a backup exactly, from SQLite to SQLite and to PostgreSQL and back:
 * doubles to the last bit, integers at the edges of their range, text with every kind of
 * character, JSON text as stored, and, in a table a migration of another version could add, the
 * types Signet does not use itself (blobs, booleans, big integers, jsonb).
 */

const secretKey = Buffer.from(KEY_A);
const dirs: string[] = [];
const installs: Installation[] = [];
let source: Config;

const TEXTS = [
  'Zoë’s lease — 2026 🖋️',
  'line\nbreak\ttab "quotes" \\ backslash',
  '日本語の契約書',
  '',
  ' '.repeat(3),
  '{"a":1,  "b":[true,null]}',
];
/** (Not -0: SQLite itself stores a REAL -0.0 as 0.) */
const DOUBLES = [
  0.1 + 0.2,
  1e-300,
  -1.7976931348623157e308,
  5e-324,
  2 ** 53 + 2,
  33.333333333333336,
];
/** `integer` is 64-bit on SQLite, 32-bit on PostgreSQL: Signet's integer columns hold the latter. */
const INTEGERS = [0, -1, 2 ** 31 - 1, -(2 ** 31), 7, 1_000_000];

const configFor = (dataDir: string, databaseUrl?: string) =>
  loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: KEY_A,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });

/** A table no Signet migration makes, with the column types Signet does not use itself. */
const extraTable = (dialect: 'sqlite' | 'postgres') =>
  dialect === 'sqlite'
    ? 'create table extra (id text primary key, b blob, flag boolean, big integer, j json, r real, seq integer)'
    : 'create table extra (id text primary key, b bytea, flag boolean, big bigint, j jsonb, r double precision, seq bigserial unique)';

beforeAll(async () => {
  const dataDir = tempDir('roundtrip');
  dirs.push(dataDir);
  source = configFor(dataDir);
  const handle = createDb({ databaseUrl: undefined, sqliteFile: path.join(dataDir, 'signet.db') });
  await migrate(handle.db);
  const now = '2026-11-21T09:30:00.000Z';
  await handle.db
    .insertInto('organizations')
    .values({
      id: 'org_1',
      name: TEXTS[0],
      admin_email: 'a@example.test',
      brand_color: null,
      logo: null,
      reply_to: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await handle.db
    .insertInto('templates')
    .values({
      id: 'tpl_1',
      org_id: 'org_1',
      name: 'T',
      search_name: 't',
      description: '',
      signing_type: 'sequential',
      file_key: null,
      original_file_key: null,
      original_content_type: null,
      file_size: 0,
      page_count: null,
      document_hash: '',
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (let i = 0; i < TEXTS.length; i++) {
    await handle.db
      .insertInto('template_fields')
      .values({
        id: `fld_${i}`,
        template_id: 'tpl_1',
        type: 'text',
        label: TEXTS[i],
        page: INTEGERS[i],
        x: DOUBLES[i],
        y: 0,
        width: 1,
        height: 1,
        required: i % 2,
        read_only: 0,
        assigned_to: 0,
        placeholder: null,
        default_value: TEXTS[(i + 1) % TEXTS.length],
        options: TEXTS[5],
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  await handle.close();
  const sqlite = (await import('better-sqlite3')).default(path.join(dataDir, 'signet.db'));
  sqlite.exec(extraTable('sqlite'));
  const insert = sqlite.prepare('insert into extra values (?, ?, ?, ?, ?, ?, ?)');
  insert.safeIntegers(true);
  insert.run(
    'x1',
    Buffer.from([0, 255, 10, 13]),
    1,
    9007199254740993n,
    '{"z": 1, "a": [1.5]}',
    0.1,
    1n,
  );
  insert.run('x2', null, 0, -9223372036854775808n, null, null, 2n);
  sqlite.close();
}, 60_000);

afterAll(async () => {
  for (const i of installs) await i.remove();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function backupOf(config: Config): Promise<string> {
  const to = path.join(tempDir('rt-backup'), 'b');
  dirs.push(path.dirname(to));
  await createBackup({
    config,
    storage: new LocalStorage(path.join(config.dataDir, 'files')),
    secretKey,
    to,
  });
  return to;
}

/** Each table's lines, sorted (row order follows each database's own key order). */
function tablesOf(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of fs.readdirSync(path.join(dir, 'tables')))
    out[f] = fs
      .readFileSync(path.join(dir, 'tables', f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .sort();
  return out;
}

async function restoreInto(inst: Installation, from: string): Promise<Config> {
  const config = configFor(inst.dataDir, inst.databaseUrl);
  if (inst.databaseUrl) {
    const client = new pg.Client({ connectionString: inst.databaseUrl });
    await client.connect();
    await client.query(extraTable('postgres'));
    await client.end();
  } else {
    const sqlite = (await import('better-sqlite3')).default(path.join(inst.dataDir, 'signet.db'));
    sqlite.exec(extraTable('sqlite'));
    sqlite.close();
  }
  await restoreBackup({
    config,
    storage: new LocalStorage(path.join(inst.dataDir, 'files')),
    secretKey,
    from,
  });
  return config;
}

describe('a backup round trip', () => {
  it('SQLite → SQLite gives back every value exactly', async () => {
    const first = await backupOf(source);
    const inst = await newInstallation();
    installs.push(inst);
    // Always SQLite here, whatever the test run's database.
    const sqliteInst = { ...inst, databaseUrl: undefined };
    const again = await backupOf(await restoreInto(sqliteInst, first));
    expect(tablesOf(again)).toEqual(tablesOf(first));
    const extra = fs.readFileSync(path.join(first, 'tables/extra.jsonl'), 'utf8');
    expect(extra).toBe(
      '["x1","AP8KDQ==",true,"9007199254740993","{\\"z\\": 1, \\"a\\": [1.5]}",0.1,1]\n' +
        '["x2",null,false,"-9223372036854775808",null,null,2]\n',
    );
  }, 60_000);

  it.skipIf(!testDatabaseUrl)(
    'SQLite → PostgreSQL → SQLite gives back every value exactly',
    async () => {
      const first = await backupOf(source);
      const inst = await newInstallation();
      installs.push(inst);
      const onPostgres = await restoreInto(inst, first);
      const client = new pg.Client({ connectionString: inst.databaseUrl });
      await client.connect();
      const fields = await client.query('select label, page, x from template_fields order by id');
      const extra = await client.query(
        `select b, flag, big::text as big, j::text as j from extra order by id`,
      );
      // The sequence behind a serial column continues after the rows restored.
      const next = await client.query(`insert into extra (id) values ('x3') returning seq`);
      await client.query(`delete from extra where id = 'x3'`);
      await client.end();
      expect(Number(next.rows[0].seq)).toBe(3);
      expect(fields.rows.map((r) => r.label)).toEqual(TEXTS);
      expect(fields.rows.map((r) => r.page)).toEqual(INTEGERS);
      expect(fields.rows.map((r) => r.x)).toEqual(DOUBLES);
      expect(extra.rows[0]).toEqual({
        b: Buffer.from([0, 255, 10, 13]),
        flag: true,
        big: '9007199254740993',
        j: '{"a": [1.5], "z": 1}',
      });
      // jsonb keeps its own key order, so that column is compared as JSON; every other line as text.
      const back = tablesOf(await backupOf(onPostgres));
      const want = tablesOf(first);
      const parsed = (lines: string[]) =>
        lines
          .map((l) => JSON.parse(l))
          .map((r) => [...r.slice(0, 4), r[4] && JSON.parse(r[4]), ...r.slice(5)]);
      expect(parsed(back['extra.jsonl'])).toEqual(parsed(want['extra.jsonl']));
      delete back['extra.jsonl'];
      delete want['extra.jsonl'];
      expect(back).toEqual(want);
    },
    60_000,
  );
});
