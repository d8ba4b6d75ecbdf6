import type { DocumentRow } from '../../db/database.ts';

/** What a new document's row takes from the request, template, campaign or bulk send that makes it. */
interface NewDocument {
  id: string;
  orgId: string;
  name: string;
  /** `draft` from the API and bulk sends (sent later), `pending` from a campaign submission (sent at once). */
  status: 'draft' | 'pending';
  signingType: string;
  requireKyc: boolean;
  /** A signer may hand over (README "Reassign"); from the request, else the template's or bulk send's. */
  allowReassign?: boolean;
  now: string;
  message?: string;
  emailSubject?: string | null;
  emailMessage?: string | null;
  locale?: string | null;
  reminderFrequency?: string | null;
  otpMethod?: string | null;
  expiresAt?: string | null;
  sentAt?: string | null;
  templateId?: string | null;
  campaignId?: string | null;
  folderId?: string | null;
  sendCompletedCopy?: boolean;
  redirectUrl?: string | null;
}

/**
 * The one place a new document's row is written: every column, the given ones set and the rest
 * at their starting values (no file yet, nothing signed or pending). The file columns are set
 * afterwards from the template's copy when there is one.
 */
export function newDocumentRow(d: NewDocument): DocumentRow {
  // Every column written out, no spread: spreading into a literal this size made V8 build a slow
  // (dictionary) object, 10 µs per spread, slower to serialize and bind after that.
  return {
    id: d.id,
    org_id: d.orgId,
    name: d.name,
    search_name: d.name.toLowerCase(),
    status: d.status,
    signing_type: d.signingType,
    message: d.message ?? '',
    email_subject: d.emailSubject ?? null,
    email_message: d.emailMessage ?? null,
    locale: d.locale ?? null,
    reminder_frequency: d.reminderFrequency ?? null,
    otp_method: d.otpMethod ?? null,
    require_kyc: d.requireKyc ? 1 : 0,
    allow_reassign: d.allowReassign ? 1 : 0,
    expires_at: d.expiresAt ?? null,
    completed_at: null,
    sent_at: d.sentAt ?? null,
    template_id: d.templateId ?? null,
    campaign_id: d.campaignId ?? null,
    bulk_send_id: null,
    folder_id: d.folderId ?? null,
    file_key: null,
    original_file_key: null,
    original_content_type: null,
    file_size: 0,
    page_count: null,
    document_hash: '',
    signed_file_key: null,
    signed_file_hash: '',
    created_at: d.now,
    updated_at: d.now,
    deleted_at: null,
    pending_upload_key: null,
    pending_upload_content_type: null,
    pending_upload_max_bytes: null,
    pending_upload_expires_at: null,
    sealing_error: null,
    pades_level: null,
    timestamp_expires_at: null,
    timestamp_renewal_claimed_until: null,
    send_completed_copy: d.sendCompletedCopy === false ? 0 : 1,
    redirect_url: d.redirectUrl ?? null,
    warnings: null,
    shown_file_hash: null,
    pending_upload_text_tags: null,
  };
}
