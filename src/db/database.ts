import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type {
  ApiKeysTable,
  IdempotencyKeysTable,
  OrganizationsTable,
  SettingsTable,
} from './tables/orgs.ts';
import type {
  AttachmentsTable,
  AuditLogsTable,
  BuilderLinksTable,
  DocumentsTable,
  FieldsTable,
  FoldersTable,
  SignersTable,
  SigningOtpsTable,
  SigningTokensTable,
} from './tables/documents.ts';
import type {
  BulkSendRowsTable,
  BulkSendsTable,
  CampaignOtpsTable,
  CampaignsTable,
  CampaignUploadsTable,
  TemplateFieldsTable,
  TemplateRolesTable,
  TemplatesTable,
} from './tables/templates.ts';
import type {
  EventsTable,
  JobsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './tables/outbox.ts';
import type { CodeFailuresTable } from './tables/exposure.ts';
import type { OrganizationExportsTable } from './tables/exports.ts';

/*
 * Storage conventions, identical on SQLite and PostgreSQL so one query layer serves both:
 * - timestamps are ISO 8601 UTC strings with milliseconds (they sort as text);
 * - booleans are integers 0/1;
 * - JSON values are text.
 *
 * The table types live by area in db/tables/ (organizations, documents, templates, the outbox);
 * this file puts them together as the one `Database` and names the row types the code uses.
 * Everything is exported from here, so code imports its table types from db/database.ts only.
 */

export * from './tables/orgs.ts';
export * from './tables/documents.ts';
export * from './tables/templates.ts';
export * from './tables/outbox.ts';
export * from './tables/exposure.ts';
export * from './tables/exports.ts';

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  settings: SettingsTable;
  folders: FoldersTable;
  documents: DocumentsTable;
  signers: SignersTable;
  fields: FieldsTable;
  attachments: AttachmentsTable;
  audit_logs: AuditLogsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  jobs: JobsTable;
  signing_tokens: SigningTokensTable;
  builder_links: BuilderLinksTable;
  signing_otps: SigningOtpsTable;
  templates: TemplatesTable;
  template_roles: TemplateRolesTable;
  template_fields: TemplateFieldsTable;
  campaigns: CampaignsTable;
  campaign_otps: CampaignOtpsTable;
  bulk_sends: BulkSendsTable;
  bulk_send_rows: BulkSendRowsTable;
  campaign_uploads: CampaignUploadsTable;
  code_failures: CodeFailuresTable;
  organization_exports: OrganizationExportsTable;
}

export type Db = Kysely<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type Executor = Kysely<Database> | Transaction<Database>;

export type DocumentRow = Selectable<DocumentsTable>;
export type NewDocumentRow = Insertable<DocumentsTable>;
/*
 * Changes of an update that leaves `status` alone: only the status modules move a status
 * (modules/documents/document-status.ts, signers/signer-status.ts, campaigns/campaign-status.ts,
 * webhooks/webhook-status.ts), so the other update functions take these types.
 */
export type DocumentUpdate = Omit<Updateable<DocumentsTable>, 'status'>;
export type SignerUpdate = Omit<Updateable<SignersTable>, 'status'>;
export type CampaignUpdate = Omit<Updateable<CampaignsTable>, 'status'>;
export type WebhookUpdate = Omit<Updateable<WebhooksTable>, 'status'>;
export type SignerRow = Selectable<SignersTable>;
export type FieldRow = Selectable<FieldsTable>;
export type FolderRow = Selectable<FoldersTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
export type JobRow = Selectable<JobsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateRoleRow = Selectable<TemplateRolesTable>;
export type TemplateFieldRow = Selectable<TemplateFieldsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type AttachmentRow = Selectable<AttachmentsTable>;
export type BulkSendRow = Selectable<BulkSendsTable>;
export type OrganizationExportRow = Selectable<OrganizationExportsTable>;
