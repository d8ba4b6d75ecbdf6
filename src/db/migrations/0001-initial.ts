import { sql, type Kysely } from 'kysely';

// Column types are the ones both SQLite and PostgreSQL understand: text, integer, double precision.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('admin_email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('api_keys_org')
    .on('api_keys')
    .columns(['org_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.references('folders.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('folders_org_created')
    .on('folders')
    .columns(['org_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('signing_type', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('email_subject', 'text')
    .addColumn('email_message', 'text')
    .addColumn('reminder_frequency', 'text')
    .addColumn('otp_method', 'text')
    .addColumn('require_kyc', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('template_id', 'text')
    .addColumn('campaign_id', 'text')
    .addColumn('bulk_send_id', 'text')
    .addColumn('folder_id', 'text', (c) => c.references('folders.id'))
    .addColumn('file_key', 'text')
    .addColumn('original_file_key', 'text')
    .addColumn('original_content_type', 'text')
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('page_count', 'integer')
    .addColumn('document_hash', 'text', (c) => c.notNull())
    .addColumn('signed_file_key', 'text')
    .addColumn('signed_file_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // Keyset pagination: newest first within an organization, live documents only.
  await db.schema
    .createIndex('documents_org_created')
    .on('documents')
    .columns(['org_id', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('documents_org_status_created')
    .on('documents')
    .columns(['org_id', 'status', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('documents_expiry')
    .on('documents')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('signers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('signers_document')
    .on('signers')
    .columns(['document_id', 'position'])
    .execute();

  await db.schema
    .createTable('fields')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('page', 'integer', (c) => c.notNull())
    .addColumn('x', 'double precision', (c) => c.notNull())
    .addColumn('y', 'double precision', (c) => c.notNull())
    .addColumn('width', 'double precision', (c) => c.notNull())
    .addColumn('height', 'double precision', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('assigned_to', 'integer', (c) => c.notNull())
    .addColumn('placeholder', 'text')
    .addColumn('default_value', 'text')
    .addColumn('options', 'text')
    .addColumn('value', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('fields_document')
    .on('fields')
    .columns(['document_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('attachments_document')
    .on('attachments')
    .columns(['document_id'])
    .execute();

  await db.schema
    .createTable('audit_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('geo_city', 'text', (c) => c.notNull())
    .addColumn('geo_country', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_logs_document')
    .on('audit_logs')
    .columns(['document_id', 'created_at', 'id'])
    .execute();

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

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('failure_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_org_created')
    .on('webhooks')
    .columns(['org_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('leased_until', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('leased_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'jobs',
    'webhook_attempts',
    'webhook_deliveries',
    'webhooks',
    'events',
    'idempotency_keys',
    'audit_logs',
    'attachments',
    'fields',
    'signers',
    'documents',
    'folders',
    'api_keys',
    'organizations',
    'settings',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
