import type { Generated, Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';

/*
 * Storage conventions, identical on SQLite and PostgreSQL so one query layer serves both:
 * - timestamps are ISO 8601 UTC strings with milliseconds (they sort as text);
 * - booleans are integers 0/1;
 * - JSON values are text.
 */

/*
 * Status values, one union per resource with a status. Each resource's module holds its allowed
 * transitions and is the only code that writes the column (modules/<resource>/<resource>-status.ts).
 */
export const DOCUMENT_STATUSES = ['draft', 'pending', 'action_required', 'completed', 'cancelled', 'expired', 'declined'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const SIGNER_STATUSES = ['pending', 'sent', 'viewed', 'completed', 'declined', 'cancelled'] as const;
export type SignerStatus = (typeof SIGNER_STATUSES)[number];
export const CAMPAIGN_STATUSES = ['active', 'paused', 'closed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const WEBHOOK_STATUSES = ['active', 'inactive'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export interface OrganizationsTable {
  id: string;
  name: string;
  admin_email: string;
  /** `#RRGGBB`, or null for Signet's own colour. */
  brand_color: string | null;
  /** A PNG or JPEG as a `data:` URL (at most 256 KB of image), or null. */
  logo: string | null;
  /** Reply-To of the organization's mail, or null. */
  reply_to: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  key_hash: string;
  /** First characters of the key, to recognise it in listings. */
  prefix: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface FoldersTable {
  id: string;
  org_id: string;
  name: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentsTable {
  id: string;
  org_id: string;
  name: string;
  /** `name` lower-cased, for case-insensitive search with one index on both databases. */
  search_name: string;
  status: DocumentStatus;
  signing_type: string;
  message: string;
  email_subject: string | null;
  email_message: string | null;
  reminder_frequency: string | null;
  otp_method: string | null;
  require_kyc: number;
  expires_at: string | null;
  completed_at: string | null;
  sent_at: string | null;
  template_id: string | null;
  campaign_id: string | null;
  bulk_send_id: string | null;
  folder_id: string | null;
  /** Storage key of the PDF signers see (the upload, or its conversion to PDF). */
  file_key: string | null;
  /** Storage key of the bytes exactly as uploaded. */
  original_file_key: string | null;
  original_content_type: string | null;
  file_size: number;
  page_count: number | null;
  document_hash: string;
  signed_file_key: string | null;
  signed_file_hash: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /* Pending direct upload (migration 0005): an S3 presigned PUT whose bytes are not verified yet; all null otherwise. */
  /** Storage key the presigned PUT writes to. */
  pending_upload_key: string | null;
  pending_upload_content_type: string | null;
  /** The declared `fileSize`, else 50 MB. */
  pending_upload_max_bytes: number | null;
  /** When the presigned URL stops being accepted. */
  pending_upload_expires_at: string | null;
  /** Why sealing failed for good (migration 0010a): the document is then `action_required` until a reseal; null otherwise. */
  sealing_error: string | null;
  /* Long-term signatures (migration 0012); null before sealing and for files sealed before it. */
  /** PAdES level of the signed PDF: B-B, B-T, B-LT, B-LTA. */
  pades_level: string | null;
  /** When the certificate of the signed PDF's newest timestamp expires. */
  timestamp_expires_at: string | null;
  /** An instance renewing the archive timestamp holds the document until then. */
  timestamp_renewal_claimed_until: string | null;
}

export interface SignersTable {
  id: string;
  document_id: string;
  name: string;
  email: string;
  phone: string | null;
  role: string;
  /** Zero-based position; `order` in the API. */
  position: number;
  status: SignerStatus;
  signed_at: string | null;
  created_at: string;
  updated_at: string;
  /* Signing session (migration 0003); all nullable. */
  /** First time the signer opened their signing link. */
  viewed_at?: string | null;
  /** Where the signer completed or declined from. */
  ip_address?: string | null;
  user_agent?: string | null;
  geo_city?: string | null;
  geo_country?: string | null;
  decline_reason?: string | null;
  /** Identity review when the document requires KYC: null (none yet), `pending`, `approved`, `rejected`. */
  verification_status?: string | null;
  /** The sender's reason on reject. */
  verification_note?: string | null;
  /** Identity evidence uploads since the sender's last review (IDENTITY_MAX_ATTEMPTS). */
  identity_attempts?: number | null;
  /** Last invitation, "your turn" mail or reminder; reminders count from it. */
  last_notified_at?: string | null;
  /** Set when an invitation could not be delivered (the document is then `action_required`). */
  delivery_failed_at?: string | null;
  delivery_error?: string | null;
}

/** Secret signing links: only the SHA-256 of the token is stored. */
export interface SigningTokensTable {
  token_hash: string;
  signer_id: string;
  document_id: string;
  /** `sign` (the signing page and API) or `download` (the signed PDF, when too large to attach). */
  purpose: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

/** The current emailed one-time code of a signer (at most one). */
export interface SigningOtpsTable {
  signer_id: string;
  /** HMAC-SHA256 of the code, keyed with the server secret. */
  code_hash: string;
  expires_at: string;
  /** Codes tried against this one, right or wrong. */
  attempts: number;
  sent_at: string;
  /** Start of the hour in which `window_sends` codes were sent (resend limit). */
  window_started_at: string;
  window_sends: number;
}

export interface FieldsTable {
  id: string;
  document_id: string;
  type: string;
  label: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: number;
  read_only: number;
  assigned_to: number;
  placeholder: string | null;
  default_value: string | null;
  /** JSON array of strings, or null. */
  options: string | null;
  value: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttachmentsTable {
  id: string;
  document_id: string;
  name: string;
  file_key: string;
  content_type: string;
  file_size: number;
  created_at: string;
  /** `signer_upload` (a `file` field) or `identity_evidence` (migration 0013b). */
  kind: AttachmentKind;
  /** SHA-256 hex of the bytes as stored; '' for rows from before migration 0013b. */
  sha256: string;
  signer_id: string | null;
  field_id: string | null;
}

export type AttachmentKind = 'signer_upload' | 'identity_evidence';

export type BulkSendStatus = 'queued' | 'processing' | 'completed' | 'cancelled';
export type BulkSendRowStatus = 'pending' | 'sent' | 'failed' | 'cancelled';

/** One template sent to many recipients (migration 0013a); each row becomes a document. */
export interface BulkSendsTable {
  id: string;
  org_id: string;
  template_id: string;
  name: string;
  status: BulkSendStatus;
  total: number;
  sent: number;
  failed: number;
  /** JSON of the settings shared by every document (message, emailSubject, expiresAt…). */
  settings: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** One recipient row of a bulk send, as validated; `position` is its zero-based index in the request. */
export interface BulkSendRowsTable {
  bulk_send_id: string;
  position: number;
  /** JSON `{name?, signers: [{role, name, email, phone?}], values?}`. */
  data: string;
  status: BulkSendRowStatus;
  document_id: string | null;
  /** Why the row failed (shown nowhere but the logs and the database; `failed` counts it). */
  error: string | null;
  updated_at: string;
}

export interface AuditLogsTable {
  id: string;
  org_id: string;
  document_id: string;
  action: string;
  details: string;
  ip_address: string;
  user_agent: string;
  geo_city: string;
  geo_country: string;
  created_at: string;
}

export interface IdempotencyKeysTable {
  /** The API key that made the request (migration 0010b): records are never shared between keys. */
  api_key_id: string;
  org_id: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  /** JSON of the event's `data` object. */
  data: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  status: WebhookStatus;
  description: string | null;
  secret: string;
  failure_count: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** `pending`, `succeeded`, `failed` (retries exhausted) or `cancelled` (webhook deactivated/deleted). */
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  leased_until: string | null;
  last_status_code: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

/** Background jobs (mail, schedulers): the transactional outbox for everything that is not a webhook. */
export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  status: string;
  attempts: number;
  run_at: string;
  leased_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A reusable file with roles and fields (migration 0004); documents and campaign submissions copy it. */
export interface TemplatesTable {
  id: string;
  org_id: string;
  name: string;
  search_name: string;
  description: string;
  signing_type: string;
  file_key: string | null;
  original_file_key: string | null;
  original_content_type: string | null;
  file_size: number;
  page_count: number | null;
  document_hash: string;
  created_at: string;
  updated_at: string;
}

/** A signing role of a template; `position` is its `order`, which template fields name in `assigned_to`. */
export interface TemplateRolesTable {
  id: string;
  template_id: string;
  name: string;
  position: number;
  /** A fixed signer who signs this role on every document made from the template. */
  signer_name: string | null;
  signer_email: string | null;
  created_at: string;
  updated_at: string;
}

export interface TemplateFieldsTable {
  id: string;
  template_id: string;
  type: string;
  label: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: number;
  read_only: number;
  assigned_to: number;
  placeholder: string | null;
  default_value: string | null;
  options: string | null;
  created_at: string;
  updated_at: string;
}

/** A public signing link built on a template; each submission is a document. */
export interface CampaignsTable {
  id: string;
  org_id: string;
  template_id: string;
  name: string;
  search_name: string;
  slug: string;
  status: CampaignStatus;
  submission_count: number;
  max_submissions: number;
  collect_phone: number;
  require_otp: number;
  require_kyc: number;
  expires_at: string | null;
  brand_color: string;
  redirect_url: string;
  welcome_title: string;
  welcome_message: string;
  created_at: string;
  updated_at: string;
}

/** The current emailed code of a public submitter, per campaign and address. */
export interface CampaignOtpsTable {
  campaign_id: string;
  email: string;
  code_hash: string;
  expires_at: string;
  attempts: number;
  sent_at: string;
  window_started_at: string;
  window_sends: number;
}

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
  signing_otps: SigningOtpsTable;
  templates: TemplatesTable;
  template_roles: TemplateRolesTable;
  template_fields: TemplateFieldsTable;
  campaigns: CampaignsTable;
  campaign_otps: CampaignOtpsTable;
  bulk_sends: BulkSendsTable;
  bulk_send_rows: BulkSendRowsTable;
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
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
export type JobRow = Selectable<JobsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateRoleRow = Selectable<TemplateRolesTable>;
export type TemplateFieldRow = Selectable<TemplateFieldsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type AttachmentRow = Selectable<AttachmentsTable>;
export type BulkSendRow = Selectable<BulkSendsTable>;
export type BulkSendRowRow = Selectable<BulkSendRowsTable>;
// Generated is re-exported for tables that may grow defaulted columns.
export type { Generated };
