import type { CampaignRow, CampaignStatus, CampaignUpdate, Executor } from '../../db/database.ts';
import { checkTransition, type Transitions } from '../../state-machine.ts';

/*
 * The campaign state machine: the sender may set any status (PATCH); a campaign also closes by
 * itself when full or expired (campaign-closing.ts). Reopening a full or expired campaign is
 * refused by the service before it gets here. moveCampaign is the only code that changes the
 * status of an existing campaign.
 */
export const CAMPAIGN_TRANSITIONS: Transitions<CampaignStatus> = {
  active: ['paused', 'closed'],
  paused: ['active', 'closed'],
  closed: ['active', 'paused'],
};

/*
 * The guards. A campaign takes submissions while active, not full and not expired
 * (public.service.ts says why not); reopening a full or expired one is refused
 * (campaigns.service.ts); an active one past its expiry closes before anyone sees it
 * (campaign-closing.ts).
 */

/** Past its `expiresAt` (a campaign without one never expires). */
export const isExpired = (row: Pick<CampaignRow, 'expires_at'>, nowMs: number) =>
  row.expires_at !== null && Date.parse(row.expires_at) <= nowMs;

/** It has all the submissions it accepts. */
export const isFull = (row: Pick<CampaignRow, 'submission_count' | 'max_submissions'>) =>
  row.submission_count >= row.max_submissions;

/** Active but expired: it closes (reason `expired`) before it is shown or used. */
export const closesAsExpired = (row: Pick<CampaignRow, 'status' | 'expires_at'>, nowMs: number) =>
  row.status === 'active' && isExpired(row, nowMs);

/**
 * Moves a campaign from one of `from` to `to` with `changes`; false when its status was not one of
 * `from` (so `campaign.closed` is emitted once). Throws IllegalTransitionError when the table
 * forbids a move.
 */
export async function moveCampaign(
  db: Executor,
  id: string,
  from: readonly CampaignStatus[],
  to: CampaignStatus,
  changes: CampaignUpdate,
): Promise<boolean> {
  checkTransition('campaign', CAMPAIGN_TRANSITIONS, from, to);
  const result = await db
    .updateTable('campaigns')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
