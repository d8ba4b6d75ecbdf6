import { fieldView } from '../documents-core/field-view.ts';
import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { CampaignRow, FieldRow, TemplateFieldRow } from '../../db/database.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { orgBrandOf } from '../orgs/organization.service.ts';
import { loadTemplateParts, type TemplateParts } from '../templates/template-copy.ts';
import { closeIfExpired } from './campaign-closing.ts';
import { isExpired, isFull } from './campaign-status.ts';
import { sendCampaignOtp } from './campaign-otp.ts';
import { planSubmission, type SubmissionPlan } from './campaign-rules.ts';
import * as repo from './campaigns.repository.ts';
import type { PublicCampaignT } from './public.schemas.ts';

/** Why a campaign takes no submissions now, in words for the visitor (the page shows them as they are). */
type Unavailable = {
  reason: 'paused' | 'closed' | 'expired' | 'full';
  title: string;
  message: string;
};

export function unavailability(campaign: CampaignRow, nowMs: number): Unavailable | null {
  if (campaign.status === 'paused') {
    return {
      reason: 'paused',
      title: 'This form is paused',
      message: 'The organizer has paused this form for now. Please try again later.',
    };
  }
  if (isFull(campaign)) {
    return {
      reason: 'full',
      title: 'This form is closed',
      message: 'It has received all the submissions it accepts.',
    };
  }
  if (isExpired(campaign, nowMs)) {
    return {
      reason: 'expired',
      title: 'This form has expired',
      message: 'It no longer accepts submissions.',
    };
  }
  if (campaign.status === 'closed') {
    return {
      reason: 'closed',
      title: 'This form is closed',
      message: 'The organizer has closed it; it no longer accepts submissions.',
    };
  }
  return null;
}

/** 409 for a campaign that takes no submissions: `limit_reached` when full, `invalid_state` otherwise; `details` names the reason. */
export function unavailableError(why: Unavailable): AppError {
  return new AppError(
    why.reason === 'full' ? 'limit_reached' : 'invalid_state',
    `${why.title}: ${why.message}`,
    [{ reason: why.reason }],
  );
}

interface OpenCampaign {
  campaign: CampaignRow;
  parts: TemplateParts;
  plan: SubmissionPlan;
}

/**
 * The campaign behind a public slug, only while it takes submissions: unknown slug 404, paused,
 * closed, expired or full 409. An active campaign found past its `expiresAt` is closed now. A
 * template edited since the campaign was made so that it can no longer back the link is a 409
 * too, without the template's details (the visitor cannot fix them).
 */
export async function openCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  slug: string,
): Promise<OpenCampaign> {
  const found = await repo.findCampaignBySlug(deps.db, slug);
  if (!found) throw notFound('Campaign');
  const campaign = await closeIfExpired(deps, found);
  const why = unavailability(campaign, deps.clock.now().getTime());
  if (why) throw unavailableError(why);
  const parts = await loadTemplateParts(deps.db, campaign.org_id, campaign.template_id);
  let plan: SubmissionPlan | undefined;
  try {
    plan = parts ? planSubmission(parts.template, parts.roles, parts.fields) : undefined;
  } catch {
    plan = undefined;
  }
  if (!parts || !plan)
    throw invalidState('This form cannot take submissions right now; please contact its organizer');
  return { campaign, parts, plan };
}

/** The visitor's fields as the signing rules see them (a document field with no value yet). */
export function asFieldRow(f: TemplateFieldRow): FieldRow {
  const { template_id, ...rest } = f;
  return { ...rest, document_id: template_id, value: null };
}

export const visitorFields = (open: OpenCampaign) =>
  open.parts.fields.filter((f) => f.assigned_to === open.plan.submitterOrder);

/** What the public page shows. */
export async function getPublicCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  slug: string,
): Promise<PublicCampaignT> {
  const open = await openCampaign(deps, slug);
  const { campaign, parts, plan } = open;
  return {
    slug: campaign.slug,
    name: campaign.name,
    status: 'active',
    welcomeTitle: campaign.welcome_title,
    welcomeMessage: campaign.welcome_message,
    brandColor: campaign.brand_color,
    ...(await brandOf(deps, campaign.org_id)),
    collectPhone: campaign.collect_phone === 1,
    requireOtp: campaign.require_otp === 1,
    requireKyc: campaign.require_kyc === 1,
    expiresAt: campaign.expires_at,
    document: { name: parts.template.name, pageCount: parts.template.page_count ?? 0 },
    role: { name: plan.submitterRole },
    fields: visitorFields(open).map(fieldView),
  };
}

/** The template's PDF, for the page to render. */
export async function openPublicFile(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock'>,
  slug: string,
): Promise<{ stream: Readable; size: number; name: string }> {
  const { parts } = await openCampaign(deps, slug);
  const key = parts.template.file_key!;
  const stat = await deps.storage.stat(key);
  if (!stat) throw notFound('File');
  return { stream: await deps.storage.get(key), size: stat.size, name: parts.template.name };
}

/** `acceptLanguage`: the visitor's `Accept-Language` (its page sends the page's own locale first). */
export async function requestOtp(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'secret' | 'counters'>,
  slug: string,
  email: string,
  acceptLanguage?: string,
) {
  const { campaign } = await openCampaign(deps, slug);
  if (campaign.require_otp !== 1) throw invalidState('This form does not use emailed codes');
  return sendCampaignOtp(deps, campaign, email, acceptLanguage);
}

/** The organization's name and logo, as the campaign page shows them. */
async function brandOf(
  deps: Pick<AppDeps, 'config' | 'db'>,
  orgId: string,
): Promise<{ senderName: string; logoUrl: string | null }> {
  const brand = await orgBrandOf(deps.db, deps.config.publicUrl, orgId);
  return { senderName: brand.name, logoUrl: brand.logoUrl };
}
