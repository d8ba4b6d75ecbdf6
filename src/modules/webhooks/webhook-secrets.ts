import type { Db } from '../../db/database.ts';
import { isSealed, sealText } from '../../secret-key.ts';

/**
 * Encrypts webhook secrets stored in plain text (written before secrets were encrypted at rest).
 * Run on every start; only a row still holding its plaintext is changed, so concurrent starts
 * never encrypt one twice.
 */
export async function sealPlaintextWebhookSecrets(db: Db, key: Buffer): Promise<number> {
  const rows = await db
    .selectFrom('webhooks')
    .select(['id', 'secret'])
    .where('secret', 'not like', 'enc:%')
    .execute();
  let sealed = 0;
  for (const row of rows) {
    if (isSealed(row.secret)) continue;
    const result = await db
      .updateTable('webhooks')
      .set({ secret: sealText(key, row.secret) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .executeTakeFirst();
    sealed += Number(result.numUpdatedRows);
  }
  return sealed;
}
