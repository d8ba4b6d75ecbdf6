/*
 * Organization exports (migration 0017a): a ZIP of an organization's documents, made by a job.
 * Part of the table types of `Database` (db/database.ts), whose storage conventions hold here too.
 */

/** Export status values: modules/exports/export-status.ts holds the transitions and alone writes the column. */
export const EXPORT_STATUSES = ['queued', 'processing', 'completed', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export interface OrganizationExportsTable {
  id: string;
  org_id: string;
  status: ExportStatus;
  /** Documents the export holds (counted when it starts). */
  total_documents: number;
  /** Documents written into the ZIP so far. */
  processed_documents: number;
  /** Storage key of the ZIP once complete; null before, and after it expired. */
  file_key: string | null;
  file_size: number | null;
  /** Why it failed, in a sentence for the API; null otherwise. */
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** When the download link stops working and the ZIP is deleted. */
  expires_at: string | null;
}
