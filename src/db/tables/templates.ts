import type { Generated } from 'kysely';

/*
 * Templates and what is made from them: campaigns (public signing links) and bulk sends.
 * Part of the table types of `Database` (db/database.ts), whose storage conventions hold here too.
 */

/** Campaign status values: campaigns/campaign-status.ts holds the transitions and alone writes the column. */
export const CAMPAIGN_STATUSES = ['active', 'paused', 'closed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type BulkSendStatus = 'queued' | 'processing' | 'completed' | 'cancelled';
export type BulkSendRowStatus = 'pending' | 'sent' | 'failed' | 'cancelled';

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
  /** 1: the documents made from it allow a signer to hand over, unless they say otherwise (migration 0021a). */
  allow_reassign: Generated<number>;
  /** JSON array of the last intake's warnings (migration 0022a); null: none. */
  warnings: string | null;
  /** SHA-256 of the PDF documents get when tags were removed from the upload; null otherwise. */
  shown_file_hash: string | null;
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
  /** Locale of the signers of this role, or null (migration 0020). */
  locale: Generated<string | null>;
  /** The signing group of this role's signers, or null: its `position` (migration 0021c). */
  signing_group: Generated<number | null>;
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
  /** `tag`: made by a text tag at intake (migration 0022a); null: placed otherwise. */
  origin: string | null;
  created_at: string;
  updated_at: string;
}

/** A public signing link built on a template; each submission is a document. */
export interface CampaignsTable {
  id: string;
  org_id: string;
  template_id: string;
  name: string;
  /** Locale of the form's page and mails, or null: the visitor's browser's (migration 0020). */
  locale: Generated<string | null>;
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

/** A file a campaign visitor attached before submitting (migration 0015); a submission makes it an attachment. */
export interface CampaignUploadsTable {
  /** The attachment id it keeps once a submission takes it. */
  id: string;
  campaign_id: string;
  /** The template field (a `file` field of the first role). */
  field_id: string;
  name: string;
  file_key: string;
  content_type: string;
  file_size: number;
  sha256: string;
  created_at: string;
}

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
