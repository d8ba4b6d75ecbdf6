import { PostgresAdapter, sql } from 'kysely';
import { SCOPES } from '../src/http/auth.ts';
import type { Db, NewDocumentRow } from '../src/db/database.ts';
import { newId } from '../src/ids.ts';
import { createApiKey, createOrganization } from '../src/modules/orgs/orgs.service.ts';

export interface Seeded {
  orgId: string;
  key: string;
  /** A document with 2 signers and 3 fields. */
  detailId: string;
}

const WORDS = ['Consulting', 'Agreement', 'NDA', 'Lease', 'Offer', 'Invoice', 'Contract', 'Renewal', 'Order', 'Policy', 'Quote', 'Amendment'];

/**
 * Seeds one organization with `count` documents, inserted in large batches straight into the
 * database (the API would take minutes for a million). Timestamps are spread one millisecond
 * apart so the keyset order is realistic.
 */
export async function seedDocuments(db: Db, count: number, log: (s: string) => void = () => {}): Promise<Seeded> {
  const org = await createOrganization(db, { name: 'Bench', adminEmail: 'bench@example.test' });
  const { key } = await createApiKey(db, { orgId: org.id, scopes: [...SCOPES], name: 'bench' });
  const start = Date.now() - count - 10_000;
  const batch = 2000;
  let detailId = '';
  for (let offset = 0; offset < count; offset += batch) {
    const rows: NewDocumentRow[] = [];
    for (let i = offset; i < Math.min(count, offset + batch); i++) {
      const at = new Date(start + i).toISOString();
      const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} #${i}`;
      rows.push({
        id: newId('doc', start + i),
        org_id: org.id,
        name,
        search_name: name.toLowerCase(),
        status: i % 5 === 0 ? 'completed' : 'draft',
        signing_type: 'sequential',
        message: '',
        email_subject: null,
        email_message: null,
        reminder_frequency: null,
        otp_method: null,
        require_kyc: 0,
        expires_at: null,
        completed_at: null,
        sent_at: null,
        template_id: null,
        campaign_id: null,
        bulk_send_id: null,
        folder_id: null,
        file_key: null,
        original_file_key: null,
        original_content_type: null,
        file_size: 0,
        page_count: null,
        document_hash: '',
        signed_file_key: null,
        signed_file_hash: '',
        created_at: at,
        updated_at: at,
        deleted_at: null,
      });
    }
    // PostgreSQL caps a statement at 65,535 parameters; 30 columns × 2000 rows fits in chunks of 500.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await trx.insertInto('documents').values(rows.slice(i, i + 500)).execute();
    });
    if (offset % 100_000 === 0 && offset > 0) log(`  seeded ${offset} documents`);
    detailId = rows[Math.floor(rows.length / 2)].id;
  }
  const now = new Date().toISOString();
  await db
    .insertInto('signers')
    .values([0, 1].map((position) => ({
      id: newId('sgn'),
      document_id: detailId,
      name: `Signer ${position}`,
      email: `signer${position}@example.test`,
      phone: null,
      role: 'signer',
      position,
      status: 'pending',
      signed_at: null,
      created_at: now,
      updated_at: now,
    })))
    .execute();
  await db
    .insertInto('fields')
    .values(['signature', 'date', 'text'].map((type, i) => ({
      id: newId('fld'),
      document_id: detailId,
      type,
      label: type,
      page: 1,
      x: 10,
      y: 10 + i * 10,
      width: 30,
      height: 5,
      required: 1,
      read_only: 0,
      assigned_to: i % 2,
      placeholder: null,
      default_value: null,
      options: null,
      value: null,
      created_at: now,
      updated_at: now,
    })))
    .execute();
  // A database that grew to this size has had its statistics gathered (PostgreSQL's autovacuum
  // does it); right after a bulk load they are missing and the planner guesses, e.g. a trigram
  // bitmap scan for a search that the (org_id, created_at) index answers in a millisecond.
  // On PostgreSQL a million fresh rows also start an autovacuum (inserts past its threshold),
  // which would run during the scenarios after them: deep-pagination measured its last pages at
  // 1.16× and 1.58× the first in full runs, 0.47× run alone. The vacuum is done here instead,
  // and a checkpoint writes the loaded pages out before anything is timed.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`vacuum analyze`.execute(db);
    await sql`checkpoint`.execute(db);
  } else {
    await sql`analyze`.execute(db);
  }
  return { orgId: org.id, key, detailId };
}
