import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/create-db.ts';
import { bootstrapDefaultOrg } from '../../src/modules/orgs/orgs.service.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * The organization "Default" and its key, made on the first start outside production
 * (src/modules/orgs/orgs.service.ts): once per database, however many servers start on it at once.
 */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

const count = async (table: 'organizations' | 'api_keys') =>
  Number(
    (
      await database.handle.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('bootstrapDefaultOrg', () => {
  it('makes "Default" and one key with every scope on an empty database, then nothing', async () => {
    const created = await bootstrapDefaultOrg(database.handle.db);
    expect(created).toMatchObject({ name: 'bootstrap', key: expect.stringMatching(/^sk_/) });
    const org = await database.handle.db
      .selectFrom('organizations')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(org).toMatchObject({
      id: created!.orgId,
      name: 'Default',
      admin_email: 'admin@localhost',
    });
    expect(await bootstrapDefaultOrg(database.handle.db)).toBeNull();
    expect(await count('organizations')).toBe(1);
    expect(await count('api_keys')).toBe(1);
  });
});

describe.skipIf(!testDatabaseUrl)(
  'bootstrapDefaultOrg, servers starting together (PostgreSQL; skipped without TEST_DATABASE_URL)',
  () => {
    it('makes one organization and one key, whoever comes first', async () => {
      // Three empty databases, each bootstrapped by six connections' pools at once: the window
      // between "no organization yet" and the insert is narrow, so one round alone may not hit it.
      for (let round = 0; round < 3; round++) {
        const empty = await createTestDatabase();
        const others = Array.from({ length: 5 }, () =>
          createDb({ databaseUrl: empty.url, sqliteFile: '', poolSize: 2 }),
        );
        try {
          const handles = [empty.handle, ...others];
          const results = await Promise.all(
            handles.flatMap((h) => [bootstrapDefaultOrg(h.db), bootstrapDefaultOrg(h.db)]),
          );
          const created = results.filter((r) => r !== null);
          expect(created).toHaveLength(1);
          const orgs = await empty.handle.db.selectFrom('organizations').select('id').execute();
          expect(orgs).toEqual([{ id: created[0]!.orgId }]);
          expect(await empty.handle.db.selectFrom('api_keys').select('org_id').execute()).toEqual([
            { org_id: created[0]!.orgId },
          ]);
        } finally {
          await Promise.all(others.map((h) => h.close()));
          await empty.drop();
        }
      }
    });
  },
);
