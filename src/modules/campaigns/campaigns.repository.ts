import { sql, type Insertable } from 'kysely';
import type {
  CampaignRow,
  CampaignStatus,
  CampaignsTable,
  CampaignUpdate,
  Executor,
  SignerRow,
} from '../../db/database.ts';
import { likePattern, paginate, type PageRequest } from '../../http/pagination.ts';

export async function findCampaign(
  db: Executor,
  orgId: string,
  id: string,
): Promise<CampaignRow | undefined> {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function findCampaignBySlug(
  db: Executor,
  slug: string,
): Promise<CampaignRow | undefined> {
  return db.selectFrom('campaigns').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function listCampaigns(
  db: Executor,
  orgId: string,
  filter: { status?: CampaignStatus; search?: string },
  page: PageRequest,
) {
  let q = db.selectFrom('campaigns').selectAll().where('org_id', '=', orgId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.search)
    q = q.where(sql<boolean>`search_name like ${likePattern(filter.search)} escape '\\'`);
  return paginate(q, page);
}

export async function insertCampaign(db: Executor, row: Insertable<CampaignsTable>): Promise<void> {
  await db.insertInto('campaigns').values(row).execute();
}

export async function updateCampaign(
  db: Executor,
  id: string,
  changes: CampaignUpdate,
): Promise<void> {
  await db.updateTable('campaigns').set(changes).where('id', '=', id).execute();
}

export async function deleteCampaign(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('campaign_otps').where('campaign_id', '=', id).execute();
  await db.deleteFrom('campaigns').where('id', '=', id).execute();
}

/**
 * The campaign of the organization, locked until the transaction ends (a same-value update takes
 * the row lock on PostgreSQL; SQLite has a single writer), so an edit and a submission that
 * touch the same campaign run one after the other.
 */
export async function lockCampaign(
  trx: Executor,
  orgId: string,
  id: string,
): Promise<CampaignRow | undefined> {
  const result = await trx
    .updateTable('campaigns')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return trx.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Takes one submission slot, atomically: the count moves only while the campaign is active, not
 * expired and below its limit. Concurrent submissions are serialized on the row (PostgreSQL
 * re-checks the condition after waiting for the lock; SQLite has a single writer), so the count
 * can never pass `max_submissions`. Returns the campaign as it is after the increment, or undefined.
 */
export async function takeSubmissionSlot(
  trx: Executor,
  id: string,
  now: string,
): Promise<CampaignRow | undefined> {
  const result = await trx
    .updateTable('campaigns')
    .set((eb) => ({ submission_count: eb('submission_count', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where((eb) => eb('submission_count', '<', eb.ref('max_submissions')))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return trx.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Active campaigns whose `expiresAt` has passed (the scheduler closes them). */
export async function listExpiredActive(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('campaigns')
    .select(['id', 'org_id'])
    .where('status', '=', 'active')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** A page of the campaign's submissions (its live documents), newest first. */
export async function listSubmissionsPage(
  db: Executor,
  orgId: string,
  campaignId: string,
  page: PageRequest,
) {
  return paginate(
    db
      .selectFrom('documents')
      .select(['id', 'name', 'status', 'completed_at', 'created_at'])
      .where('campaign_id', '=', campaignId)
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null),
    page,
  );
}

export async function listSignersOf(db: Executor, documentIds: string[]): Promise<SignerRow[]> {
  if (documentIds.length === 0) return [];
  return db
    .selectFrom('signers')
    .selectAll()
    .where('document_id', 'in', documentIds)
    .orderBy('position')
    .orderBy('id')
    .execute();
}
