import type { Executor } from '../../db/database.ts';
import type { FinalizeTimelineEntry } from '../../pdf/finalize-input.ts';

/** The audit actions the certificate page's timeline shows, in words. */
const EVENTS: Record<string, string> = {
  'document.created': 'Created',
  'document.uploaded': 'File uploaded',
  'document.sent': 'Sent',
  'signer.reminded': 'Reminder sent',
  'signer.reassigned': 'Handed over',
  'document.viewed': 'Viewed',
  'signer.identity_submitted': 'Identity evidence submitted',
  'signer.file_uploaded': 'File attached',
  'signer.completed': 'Signed',
  'document.reseal_requested': 'Sealing retried',
};

/** At most this many entries (the earliest); a certificate page is not the full audit log. */
const MAX_ENTRIES = 100;

/** The document's timeline from its audit log, oldest first: time, what, IP address and location. */
export async function documentTimeline(
  db: Executor,
  documentId: string,
): Promise<FinalizeTimelineEntry[]> {
  const rows = await db
    .selectFrom('audit_logs')
    .select(['action', 'details', 'ip_address', 'geo_city', 'geo_country', 'created_at'])
    .where('document_id', '=', documentId)
    .where('action', 'in', Object.keys(EVENTS))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(MAX_ENTRIES)
    .execute();
  return rows.map((r) => ({
    at: r.created_at,
    event: r.details ? `${EVENTS[r.action]}: ${r.details}` : EVENTS[r.action],
    ipAddress: r.ip_address,
    location: [r.geo_city, r.geo_country].filter(Boolean).join(', '),
  }));
}
