import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import { allColumns, preparedInsert } from '../../db/prepared.ts';
import type { AuditLogRow } from '../../db/database.ts';
import type { RequestMeta } from '../../http/request-meta.ts';

/** The actor of an entry no request caused (a scheduler, a job). */
export const UNKNOWN_ACTOR: RequestMeta = {
  ipAddress: '',
  userAgent: '',
  geoCity: '',
  geoCountry: '',
};

type AuditAction =
  | 'document.created'
  | 'document.updated'
  | 'document.uploaded'
  | 'document.upload_refused'
  | 'document.sent'
  | 'document.viewed'
  | 'document.cancelled'
  | 'document.deleted'
  | 'document.downloaded'
  | 'document.completed'
  | 'document.declined'
  | 'document.expired'
  | 'document.action_required'
  | 'document.resumed'
  | 'document.reseal_requested'
  | 'document.timestamp_renewed'
  | 'signer.added'
  | 'signer.updated'
  | 'signer.removed'
  | 'signer.notified'
  | 'signer.completed'
  | 'signer.declined'
  | 'signer.link_created'
  | 'signer.otp_sent'
  | 'signer.otp_failed'
  | 'signer.reminded'
  | 'signer.identity_submitted'
  | 'signer.identity_approved'
  | 'signer.identity_rejected'
  | 'signer.invitation_failed'
  | 'signer.sms_failed'
  | 'signer.file_uploaded'
  | 'signer.access_code_failed'
  | 'signer.authenticated'
  | 'signer.invitation_resent'
  | 'signer.consented'
  | 'signer.reassigned'
  | 'field.added'
  | 'field.updated'
  | 'field.removed';

const insertAudit = preparedInsert(
  'audit_logs',
  allColumns<AuditLogRow>()([
    'id',
    'org_id',
    'document_id',
    'action',
    'details',
    'ip_address',
    'user_agent',
    'geo_city',
    'geo_country',
    'created_at',
  ]),
);

type AuditEntry = {
  orgId: string;
  documentId: string;
  action: AuditAction;
  details: string;
  meta: RequestMeta;
};

/** The row of one audit entry, stamped now. */
export function auditRow(clock: Clock, entry: AuditEntry): AuditLogRow {
  return {
    id: newId('aud'),
    org_id: entry.orgId,
    document_id: entry.documentId,
    action: entry.action,
    details: entry.details,
    ip_address: entry.meta.ipAddress,
    user_agent: entry.meta.userAgent,
    geo_city: entry.meta.geoCity,
    geo_country: entry.meta.geoCountry,
    created_at: clock.now().toISOString(),
  };
}

/** Appends one audit entry; call it inside the transaction that makes the change. */
export async function writeAudit(trx: Executor, clock: Clock, entry: AuditEntry): Promise<void> {
  await insertAudit(trx, auditRow(clock, entry));
}

/** writeAudit for several entries, as one insert. */
export async function writeAudits(
  trx: Executor,
  clock: Clock,
  entries: AuditEntry[],
): Promise<void> {
  if (entries.length === 1) return writeAudit(trx, clock, entries[0]);
  if (entries.length > 0)
    await trx
      .insertInto('audit_logs')
      .values(entries.map((e) => auditRow(clock, e)))
      .execute();
}
