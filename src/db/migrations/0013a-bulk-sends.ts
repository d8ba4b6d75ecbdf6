import type { Kysely } from 'kysely';

/*
 * Bulk sends: one template, many recipients. The bulk send holds the shared settings and the
 * progress counters; each row of the request is kept as it was validated, with its own status,
 * so the background job can resume after a crash and create each row's document exactly once:
 * the row moves from `pending` to `sent` in the same transaction that creates its document.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bulk_sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('bulk_sends_org_created')
    .on('bulk_sends')
    .columns(['org_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('bulk_send_rows')
    .addColumn('bulk_send_id', 'text', (c) => c.notNull().references('bulk_sends.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_send_rows_pk', ['bulk_send_id', 'position'])
    .execute();
  await db.schema
    .createIndex('bulk_send_rows_status')
    .on('bulk_send_rows')
    .columns(['bulk_send_id', 'status'])
    .execute();
  // A document belongs to at most one row: a second creation for the same row cannot commit.
  await db.schema
    .createIndex('bulk_send_rows_document')
    .on('bulk_send_rows')
    .column('document_id')
    .unique()
    .execute();
  await db.schema
    .createIndex('documents_bulk_send')
    .on('documents')
    .columns(['bulk_send_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_bulk_send').execute();
  await db.schema.dropTable('bulk_send_rows').execute();
  await db.schema.dropTable('bulk_sends').execute();
}
