import type { Db } from '../../db/database.ts';
import { ConfigError } from '../../config-values.ts';
import { isSealed, openText, sealText } from '../../secret-key.ts';

/**
 * The start-up step of the webhook secrets (server.ts, after migrating, before the app is built):
 * refuses to start (ConfigError) when the stored secrets do not open with `key`, then encrypts
 * those still stored in plain text. buildApp only wires: it writes nothing.
 */
export async function prepareWebhookSecrets(db: Db, key: Buffer): Promise<void> {
  const problem = await webhookSecretsProblem(db, key);
  if (problem !== null) throw new ConfigError(problem);
  await sealPlaintextWebhookSecrets(db, key);
}

/**
 * Encrypts webhook secrets stored in plain text (written before secrets were encrypted at rest).
 * Run on every start; only a row still holding its plaintext is changed, so concurrent starts
 * never encrypt one twice.
 */
async function sealPlaintextWebhookSecrets(db: Db, key: Buffer): Promise<number> {
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

/**
 * Why the webhook secrets in the database cannot be opened with `key`, or null when they can (or
 * there are none). One sealed secret is tried: they are all sealed with the same key. A restore
 * started with another SECRET_KEY than the one its data was written with is refused here, before
 * it signs a single delivery with a secret it cannot read.
 */
async function webhookSecretsProblem(db: Db, key: Buffer): Promise<string | null> {
  const row = await db
    .selectFrom('webhooks')
    .select('secret')
    .where('secret', 'like', 'enc:%')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  try {
    openText(key, row.secret);
    return null;
  } catch {
    return 'the webhook secrets stored in the database do not open with SECRET_KEY: SECRET_KEY is not the one they were encrypted with (after a restore, start with the SECRET_KEY of the instance the backup was made from)';
  }
}
