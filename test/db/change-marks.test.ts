import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate, type DbHandle } from '../../src/db/create-db.ts';

/*
 * The change marks of a SQLite database (src/db/create-db.ts): the read cache trusts changeMark,
 * the API key cache keysMark. A mark that stays put while what it covers changed would serve
 * stale answers; keysMark must also stay put through writes that cannot change a key.
 */

let dir: string;
let handle: DbHandle;
let other: DbHandle;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-marks-'));
  handle = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'signet.db') });
  await migrate(handle.db);
  other = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'signet.db') });
  await handle.db.insertInto('organizations').values({ id: 'org_marks', name: 'Marks', admin_email: 'a@example.com', created_at: new Date().toISOString(), updated_at: new Date().toISOString() }).execute();
});
afterAll(async () => {
  await other.close();
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function marksAfter(write: () => Promise<unknown>) {
  await nextTurn();
  const before = { change: handle.changeMark!(), keys: handle.keysMark!() };
  await write();
  await nextTurn();
  return { change: handle.changeMark!() !== before.change, keys: handle.keysMark!() !== before.keys };
}

describe('SQLite change marks', () => {
  it('moves both marks on a key write here, only the change mark on any other write', async () => {
    const now = new Date().toISOString();
    expect(
      await marksAfter(() =>
        handle.db.insertInto('api_keys').values({ id: 'key_1', org_id: 'org_marks', name: 'k', key_hash: 'h1', prefix: 'sk_', scopes: '[]', created_at: now }).execute(),
      ),
    ).toEqual({ change: true, keys: true });
    expect(await marksAfter(() => handle.db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', 'key_1').execute())).toEqual({ change: true, keys: true });
    expect(await marksAfter(() => handle.db.updateTable('organizations').set({ name: 'Renamed' }).execute())).toEqual({ change: true, keys: true });
    expect(await marksAfter(() => handle.db.insertInto('folders').values({ id: 'fld_1', org_id: 'org_marks', name: 'F', created_at: now, updated_at: now }).execute())).toEqual({
      change: true,
      keys: false,
    });
    expect(await marksAfter(() => sql`select count(*) from api_keys`.execute(handle.db))).toEqual({ change: false, keys: false });
  });

  it('leaves the change mark where a write changes no row (a background worker finding nothing to do)', async () => {
    expect(await marksAfter(() => handle.db.updateTable('jobs').set({ attempts: 1 }).where('id', '=', 'no_such_job').execute())).toEqual({ change: false, keys: false });
    expect(await marksAfter(() => handle.db.deleteFrom('folders').where('id', '=', 'no_such_folder').execute())).toEqual({ change: false, keys: false });
    // Within one turn: a change after the mark was read still moves it.
    const before = handle.changeMark!();
    await handle.db.updateTable('folders').set({ name: 'G' }).where('id', '=', 'fld_1').execute();
    expect(handle.changeMark!()).not.toBe(before);
    // A schema change is not a row change, but may change what a query returns.
    expect((await marksAfter(() => sql`create index folders_name_test on folders (name)`.execute(handle.db))).change).toBe(true);
  });

  it('moves both marks on any commit of another connection', async () => {
    expect(await marksAfter(() => sql`delete from folders`.execute(other.db))).toEqual({ change: true, keys: true });
  });
});
