import type { CampaignStatus, CampaignUpdate, Executor } from '../../db/database.ts';
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
