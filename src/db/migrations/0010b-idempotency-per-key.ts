import type { Kysely } from 'kysely';

/*
 * Idempotency records belong to the API key that made the request, not only to its organization:
 * a replay hands back the first response (which may hold a webhook secret or a signing link), so
 * another key of the organization must never receive it. Records are kept 24 hours; those written
 * before this migration cannot be attributed to a key and are dropped (a retry of such a request
 * runs again).
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['api_key_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .columns(['created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .columns(['created_at'])
    .execute();
}
