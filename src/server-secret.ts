import { randomBytes } from 'node:crypto';
import type { Db } from './db/database.ts';

/**
 * A random secret shared by every instance through the database (signed upload URLs and
 * similar short-lived tokens). Created once; concurrent first starts agree on one value.
 */
export async function loadServerSecret(db: Db): Promise<Buffer> {
  const read = () =>
    db.selectFrom('settings').select('value').where('key', '=', 'server_secret').executeTakeFirst();
  let row = await read();
  if (!row) {
    await db
      .insertInto('settings')
      .values({ key: 'server_secret', value: randomBytes(32).toString('hex') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await read();
  }
  return Buffer.from(row!.value, 'hex');
}
