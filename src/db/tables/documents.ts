import type { Generated } from 'kysely';

/*
 * Documents and what belongs to them: folders, signers with their signing links and codes, fields,
 * attachments, the audit log.
 * Part of the table types of `Database` (db/database.ts), whose storage conventions hold here too.
 */

/*
 * Status values, one union per resource with a status (these two, campaigns' and webhooks'). Each
 * resource's module holds its allowed transitions and is the only code that writes the column
 * (modules/<resource>/<resource>-status.ts).
 */
export const DOCUMENT_STATUSES = [
  'draft',
  'pending',
  'action_required',
  'completed',
  'cancelled',
  'expired',
  'declined',
] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const SIGNER_STATUSES = [
  'pending',
  'sent',
  'viewed',
  'completed',
  'declined',
  'cancelled',
] as const;
export type SignerStatus = (typeof SIGNER_STATUSES)[number];

export type AttachmentKind = 'signer_upload' | 'identity_evidence';

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
  /** Locale of its signers' pages and mails, or null: the organization's (migration 0020). */
  locale: Generated<string | null>;
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
  /** 1: the signer whose turn it is may hand over to someone else (migration 0021a). */
  allow_reassign: Generated<number>;
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
  /* Embedding (migration 0021d). */
  /** 0: no completed-copy mails; null or 1: mailed. */
  send_completed_copy: number | null;
  /** Where a signer who is not embedded is sent after completing or declining; null: nowhere. */
  redirect_url: string | null;
  /* Text tags (migration 0022a). */
  /** JSON array of the last intake's warnings ({code, message, page}); null: none. */
  warnings: string | null;
  /** SHA-256 of the PDF signers see when tags were removed from the upload; null otherwise. */
  shown_file_hash: string | null;
  /** 1: the pending direct upload's tags are read when it is verified. */
  pending_upload_text_tags: number | null;
}

export interface SignersTable {
  id: string;
  document_id: string;
  name: string;
  /** This signer's locale, or null: the document's, then the organization's (migration 0020). */
  locale: Generated<string | null>;
  email: string;
  phone: string | null;
  role: string;
  /** Zero-based position; `order` in the API. */
  position: number;
  /** The signer's turn in a sequential document, or null: its `position` (migration 0021c). */
  signing_group: Generated<number | null>;
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
  /** 1: a visitor typed this address on a public form and never proved it with a code (migration 0016a). */
  email_unproven?: number | null;
  /** Keyed hash of the sender's access code; null when the signer has none (migration 0018a). */
  access_code_hash?: string | null;
  /** `email`, `sms`, or null: the document's `otp_method` (migration 0021b). */
  otp_method?: string | null;
  /** Set when a code could not be texted to `phone` (the document is then `action_required`). */
  sms_failed_at?: string | null;
  sms_error?: string | null;
  /** The consent the signer accepted (migration 0018b): the exact text, its locale, its SHA-256 (hex), when. */
  consent_text?: string | null;
  consent_locale?: string | null;
  consent_sha256?: string | null;
  consented_at?: string | null;
  /** `embedded`: the sender hands out the links, no invitation, reminder or your-turn mail; null: email (migration 0021d). */
  delivery?: string | null;
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
  /** When its signer handed over (migration 0021a): the link answers 410 `link_replaced`; revoked too. */
  replaced_at?: string | null;
  created_at: string;
}

/** A builder link (migration 0022b): one draft document's or one template's field builder. */
export interface BuilderLinksTable {
  /** SHA-256 (hex) of the token in `PUBLIC_URL/build/{token}`. */
  token_hash: string;
  org_id: string;
  /** Exactly one of document_id and template_id is set. */
  document_id: string | null;
  template_id: string | null;
  expires_at: string;
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
  /** `tag`: made by a text tag at intake (migration 0022a); null: placed otherwise. */
  origin: string | null;
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
