import type { Kysely } from 'kysely';

/*
 * Per-webhook backoff. While a webhook is failing (`failure_count` > 0) its deliveries are held and
 * one probe at a time is sent, no earlier than `probe_at`; `last_failure_at` is when the latest
 * counted failure was recorded (attempts that started before it failed with it and do not count
 * again). Both null while the webhook is healthy.
 */
const COLUMNS = ['probe_at', 'last_failure_at'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  for (const column of COLUMNS)
    await db.schema.alterTable('webhooks').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('webhooks').dropColumn(column).execute();
}
