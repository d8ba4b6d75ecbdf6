import { sql, type Kysely } from 'kysely';

/*
 * Templates (a reusable file with roles and fields) and campaigns (a public signing link built
 * on a template). A template's roles and fields are copied into each document made from it, so
 * later template edits never change a document already created.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('signing_type', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('original_file_key', 'text')
    .addColumn('original_content_type', 'text')
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('page_count', 'integer')
    .addColumn('document_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('templates_org_created')
    .on('templates')
    .columns(['org_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('template_roles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('template_id', 'text', (c) =>
      c.notNull().references('templates.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('signer_name', 'text')
    .addColumn('signer_email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One role per order: a field's `assignedTo` names exactly one role.
  await db.schema
    .createIndex('template_roles_position')
    .on('template_roles')
    .columns(['template_id', 'position'])
    .unique()
    .execute();

  await db.schema
    .createTable('template_fields')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('template_id', 'text', (c) =>
      c.notNull().references('templates.id').onDelete('cascade'),
    )
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
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('template_fields_template')
    .on('template_fields')
    .columns(['template_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('submission_count', 'integer', (c) => c.notNull())
    .addColumn('max_submissions', 'integer', (c) => c.notNull())
    .addColumn('collect_phone', 'integer', (c) => c.notNull())
    .addColumn('require_otp', 'integer', (c) => c.notNull())
    .addColumn('require_kyc', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('brand_color', 'text', (c) => c.notNull())
    .addColumn('redirect_url', 'text', (c) => c.notNull())
    .addColumn('welcome_title', 'text', (c) => c.notNull())
    .addColumn('welcome_message', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('campaigns_org_created')
    .on('campaigns')
    .columns(['org_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('campaigns_org_status_created')
    .on('campaigns')
    .columns(['org_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('campaigns_template')
    .on('campaigns')
    .columns(['template_id'])
    .execute();
  // Submissions of a campaign, newest first.
  await db.schema
    .createIndex('documents_campaign_created')
    .on('documents')
    .columns(['campaign_id', 'created_at', 'id'])
    .where(sql.ref('campaign_id'), 'is not', null)
    .execute();

  // Emailed codes of public submitters, who have no signer row yet: one live code per campaign and address.
  await db.schema
    .createTable('campaign_otps')
    .addColumn('campaign_id', 'text', (c) =>
      c.notNull().references('campaigns.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('window_sends', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_otps_pk', ['campaign_id', 'email'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('campaign_otps').ifExists().execute();
  await db.schema.dropIndex('documents_campaign_created').ifExists().execute();
  for (const table of ['campaigns', 'template_fields', 'template_roles', 'templates']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
