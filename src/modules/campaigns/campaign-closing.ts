import type { AppDeps } from '../../deps.ts';
import type { CampaignRow, Executor } from '../../db/database.ts';
import { emitEvent } from '../events/emit.ts';
import type { CLOSE_REASONS } from './campaign-events.ts';
import * as repo from './campaigns.repository.ts';
import { closesAsExpired, moveCampaign } from './campaign-status.ts';
import { toCampaign } from './campaigns.mappers.ts';

/*
 * A campaign closes by itself when it reaches `maxSubmissions` (in the submission that fills the
 * last slot) or its `expiresAt` (found by the scheduler's sweep, or by the first request that reads
 * the campaign afterwards, whichever comes first). `campaign.closed` is emitted exactly once per
 * closing: every path closes with a conditional UPDATE that only one transaction can win.
 */

type CloseReason = (typeof CLOSE_REASONS)[number];

/** `campaign.closed` with the campaign as it is now and why it closed. */
export async function emitClosed(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  campaign: CampaignRow,
  reason: CloseReason,
): Promise<void> {
  await emitEvent(trx, deps.clock, campaign.org_id, 'campaign.closed', {
    campaign: toCampaign(campaign, deps.config.publicUrl),
    reason,
  });
}

/**
 * Closes an active campaign inside the caller's transaction and emits `campaign.closed`. Returns the
 * campaign as it is afterwards and whether this call closed it (false: it was no longer active).
 */
export async function closeCampaign(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  campaign: CampaignRow,
  reason: CloseReason,
): Promise<{ campaign: CampaignRow; closed: boolean }> {
  const now = deps.clock.now().toISOString();
  if (!(await moveCampaign(trx, campaign.id, ['active'], 'closed', { updated_at: now })))
    return { campaign, closed: false };
  const closed: CampaignRow = { ...campaign, status: 'closed', updated_at: now };
  await emitClosed(trx, deps, closed, reason);
  return { campaign: closed, closed: true };
}

async function expire(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  campaign: CampaignRow,
): Promise<{ campaign: CampaignRow; closed: boolean }> {
  return deps.db.transaction().execute(async (trx) => {
    const locked = await repo.lockCampaign(trx, campaign.org_id, campaign.id);
    if (!locked) return { campaign, closed: false };
    if (!closesAsExpired(locked, deps.clock.now().getTime()))
      return { campaign: locked, closed: false };
    return closeCampaign(trx, deps, locked, 'expired');
  });
}

/**
 * The campaign as it should be seen now: an active campaign past its `expiresAt` is closed first.
 * Reads never show an active campaign that can no longer take submissions.
 */
export async function closeIfExpired(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  campaign: CampaignRow,
): Promise<CampaignRow> {
  if (!closesAsExpired(campaign, deps.clock.now().getTime())) return campaign;
  return (await expire(deps, campaign)).campaign;
}

/** The scheduler's sweep: closes every active campaign whose `expiresAt` has passed; returns how many it closed. */
export async function closeExpiredCampaigns(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  batch = 100,
): Promise<number> {
  const due = await repo.listExpiredActive(deps.db, deps.clock.now().toISOString(), batch);
  let closed = 0;
  for (const { id, org_id } of due) {
    const row = await repo.findCampaign(deps.db, org_id, id);
    if (row && (await expire(deps, row)).closed) closed++;
  }
  return closed;
}
