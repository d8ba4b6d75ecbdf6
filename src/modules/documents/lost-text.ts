import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../../db/database.ts';
import { findLostText, type LostTextReport } from '../../pdf/lost-text.ts';
import type { Storage } from '../../storage/storage.ts';

/** A completed document whose sealed file drew `?` in place of some of its text. */
interface LostTextDocument extends LostTextReport {
  documentId: string;
  orgId: string;
  name: string;
  completedAt: string | null;
}

const PAGE = 100;

/**
 * Every completed document whose seal lost text, oldest first. Documents are read a page of ids
 * at a time and their signed files one at a time (copied to a temporary file, read, removed), so
 * memory stays flat however many there are. `onUnreadable` hears of a file that cannot be read.
 */
export async function* documentsWithLostText(
  deps: { db: Db; storage: Storage },
  options: { orgId?: string; onUnreadable?: (documentId: string, error: Error) => void } = {},
): AsyncGenerator<LostTextDocument> {
  let after = '';
  for (;;) {
    let query = deps.db
      .selectFrom('documents')
      .select(['id', 'org_id', 'name', 'completed_at', 'signed_file_key'])
      .where('status', '=', 'completed')
      .where('signed_file_key', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE);
    if (options.orgId) query = query.where('org_id', '=', options.orgId);
    const rows = await query.execute();
    for (const row of rows) {
      const key = row.signed_file_key;
      if (!key) continue;
      const file = path.join(os.tmpdir(), `signet-lost-text-${randomBytes(6).toString('hex')}.pdf`);
      try {
        await pipeline(await deps.storage.get(key), createWriteStream(file));
        const report = findLostText(file);
        if (report.lost.length)
          yield {
            documentId: row.id,
            orgId: row.org_id,
            name: row.name,
            completedAt: row.completed_at,
            ...report,
          };
      } catch (err) {
        options.onUnreadable?.(row.id, err instanceof Error ? err : new Error(String(err)));
      } finally {
        await rm(file, { force: true });
      }
    }
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].id;
  }
}
