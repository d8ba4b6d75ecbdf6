import type { AppDeps } from '../../deps.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import type { CampaignRow, CampaignUpdate, Executor } from '../../db/database.ts';
import { AppError, notFound, validation } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { loadTemplateParts } from '../templates/template-copy.ts';
import { closeCampaign, closeIfExpired, emitClosed } from './campaign-closing.ts';
import { checkFutureExpiry, checkRedirectUrl, newSlug, planSubmission } from './campaign-rules.ts';
import * as repo from './campaigns.repository.ts';
import { closesAsExpired, isExpired, isFull, moveCampaign } from './campaign-status.ts';
import {
  toCampaign,
  toCampaignListItem,
  toCreatedCampaign,
  toSubmission,
} from './campaigns.mappers.ts';
import {
  DEFAULT_BRAND_COLOR,
  MAX_SUBMISSIONS_LIMIT,
  type CreateCampaignInput,
  type ListCampaignsQueryT,
  type ListSubmissionsQueryT,
  type UpdateCampaignInput,
} from './campaigns.schemas.ts';

const isoOrNull = (value: string | null | undefined) =>
  value ? new Date(value).toISOString() : null;

/** The campaign of the organization, or 404 (another organization's campaign is 404 too). */
async function requireCampaign(db: Executor, orgId: string, id: string): Promise<CampaignRow> {
  const row = await repo.findCampaign(db, orgId, id);
  if (!row) throw notFound('Campaign');
  return row;
}

/**
 * The template a campaign is built on: it must be the organization's (400, like any reference in a
 * body) and able to back a public link (409, see `planSubmission`).
 */
async function requireUsableTemplate(
  trx: Executor,
  orgId: string,
  templateId: string,
): Promise<void> {
  const parts = await loadTemplateParts(trx, orgId, templateId);
  if (!parts) throw validation('body.templateId', 'is not a template of your organization');
  planSubmission(parts.template, parts.roles, parts.fields);
}

/** A slug no campaign has yet (6 random characters collide about once in two billion). */
async function uniqueSlug(trx: Executor, name: string): Promise<string> {
  for (;;) {
    const slug = newSlug(name);
    if (!(await repo.findCampaignBySlug(trx, slug))) return slug;
  }
}

/** Creates an active campaign on a usable template of the organization. */
export async function createCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  orgId: string,
  input: CreateCampaignInput,
) {
  checkFutureExpiry(input.expiresAt, deps.clock.now().getTime());
  checkRedirectUrl(input.redirectUrl);
  return deps.db.transaction().execute(async (trx) => {
    await requireUsableTemplate(trx, orgId, input.templateId);
    const now = deps.clock.now().toISOString();
    const row: CampaignRow = {
      id: newId('cmp'),
      org_id: orgId,
      template_id: input.templateId,
      name: input.name,
      search_name: input.name.toLowerCase(),
      slug: await uniqueSlug(trx, input.name),
      status: 'active',
      submission_count: 0,
      max_submissions: input.maxSubmissions ?? MAX_SUBMISSIONS_LIMIT,
      collect_phone: input.collectPhone === false ? 0 : 1,
      require_otp: input.requireOtp ? 1 : 0,
      require_kyc: input.requireKyc ? 1 : 0,
      expires_at: isoOrNull(input.expiresAt),
      brand_color: input.brandColor ?? DEFAULT_BRAND_COLOR,
      redirect_url: input.redirectUrl ?? '',
      welcome_title: input.welcomeTitle ?? '',
      welcome_message: input.welcomeMessage ?? '',
      locale: checkOptionalLocale(input.locale, 'body.locale') ?? null,
      created_at: now,
      updated_at: now,
    };
    await repo.insertCampaign(trx, row);
    return toCreatedCampaign(row, deps.config.publicUrl);
  });
}

export async function getCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  orgId: string,
  id: string,
) {
  return toCampaign(
    await closeIfExpired(deps, await requireCampaign(deps.db, orgId, id)),
    deps.config.publicUrl,
  );
}

export async function listCampaigns(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  orgId: string,
  query: ListCampaignsQueryT,
) {
  const { rows, meta } = await repo.listCampaigns(
    deps.db,
    orgId,
    { status: query.status, search: query.search },
    { list: 'campaigns', limit: query.limit, cursor: query.cursor },
  );
  // Campaigns found past their expiresAt are closed now rather than shown active until the next sweep.
  const nowMs = deps.clock.now().getTime();
  const current = await Promise.all(
    rows.map((row) => (closesAsExpired(row, nowMs) ? closeIfExpired(deps, row) : row)),
  );
  return { data: current.map((row) => toCampaignListItem(row, deps.config.publicUrl)), meta };
}

/**
 * Edits a campaign; answers the full campaign. `status` may be set to any of the three, but a
 * campaign cannot be made `active` while it is full (409 `limit_reached`: raise `maxSubmissions`)
 * or past its `expiresAt` (409 `invalid_state`: set a later one). `maxSubmissions` cannot go below
 * the submissions already received (400); set to exactly that number, it closes the campaign.
 */
export async function updateCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  orgId: string,
  id: string,
  input: UpdateCampaignInput,
) {
  const nowMs = deps.clock.now().getTime();
  checkFutureExpiry(input.expiresAt, nowMs);
  checkRedirectUrl(input.redirectUrl);
  return deps.db.transaction().execute(async (trx) => {
    const current = await repo.lockCampaign(trx, orgId, id);
    if (!current) throw notFound('Campaign');
    if (input.templateId !== undefined && input.templateId !== current.template_id)
      await requireUsableTemplate(trx, orgId, input.templateId);

    const maxSubmissions = input.maxSubmissions ?? current.max_submissions;
    if (maxSubmissions < current.submission_count) {
      throw validation(
        'body.maxSubmissions',
        `must be at least ${current.submission_count}, the submissions already received`,
      );
    }
    const expiresAt =
      input.expiresAt === undefined ? current.expires_at : isoOrNull(input.expiresAt);
    const full = isFull({ ...current, max_submissions: maxSubmissions });
    const expired = isExpired({ expires_at: expiresAt }, nowMs);
    if (input.status === 'active') {
      if (full) {
        throw new AppError(
          'limit_reached',
          `The campaign has its ${maxSubmissions} submissions; raise maxSubmissions to reopen it`,
        );
      }
      if (expired)
        throw new AppError(
          'invalid_state',
          'The campaign has expired; set a later expiresAt (or null) to reopen it',
        );
    }

    const changes: CampaignUpdate = {
      updated_at: deps.clock.now().toISOString(),
      max_submissions: maxSubmissions,
      expires_at: expiresAt,
    };
    if (input.templateId !== undefined) changes.template_id = input.templateId;
    if (input.name !== undefined) {
      changes.name = input.name;
      changes.search_name = input.name.toLowerCase();
    }
    if (input.welcomeTitle !== undefined) changes.welcome_title = input.welcomeTitle;
    if (input.welcomeMessage !== undefined) changes.welcome_message = input.welcomeMessage;
    if (input.locale !== undefined)
      changes.locale = checkOptionalLocale(input.locale, 'body.locale');
    if (input.collectPhone !== undefined) changes.collect_phone = input.collectPhone ? 1 : 0;
    if (input.requireOtp !== undefined) changes.require_otp = input.requireOtp ? 1 : 0;
    if (input.requireKyc !== undefined) changes.require_kyc = input.requireKyc ? 1 : 0;
    if (input.brandColor !== undefined) changes.brand_color = input.brandColor;
    if (input.redirectUrl !== undefined) changes.redirect_url = input.redirectUrl;
    await repo.updateCampaign(trx, id, changes);
    // The row is locked: the move succeeds unless the status stays the same.
    if (input.status !== undefined && input.status !== current.status)
      await moveCampaign(trx, id, [current.status], input.status, {});
    let updated: CampaignRow = { ...current, ...changes, status: input.status ?? current.status };

    if (current.status !== 'closed' && updated.status === 'closed') {
      await emitClosed(trx, deps, updated, 'manual');
    } else if (updated.status === 'active' && (full || expired)) {
      // Still active after the edit, but it can take no more submissions: it closes as it would on its own.
      updated = (await closeCampaign(trx, deps, updated, full ? 'max_submissions' : 'expired'))
        .campaign;
    }
    return toCampaign(updated, deps.config.publicUrl);
  });
}

/** Deletes a campaign for good; its submissions stay as documents, still carrying its id in `campaignId`. */
export async function deleteCampaign(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  id: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.lockCampaign(trx, orgId, id))) throw notFound('Campaign');
    await repo.deleteCampaign(trx, id);
  });
}

/** The documents submitted through the campaign, newest first, each with its signers. */
export async function listSubmissions(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  id: string,
  query: ListSubmissionsQueryT,
) {
  await requireCampaign(deps.db, orgId, id);
  const { rows, meta } = await repo.listSubmissionsPage(deps.db, orgId, id, {
    list: `submissions:${id}`,
    limit: query.limit,
    cursor: query.cursor,
  });
  const signers = await repo.listSignersOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    data: rows.map((doc) =>
      toSubmission(
        doc,
        signers.filter((s) => s.document_id === doc.id),
      ),
    ),
    meta,
  };
}
