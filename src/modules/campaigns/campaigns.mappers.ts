import type { CampaignRow, SignerRow } from '../../db/database.ts';
import type {
  CampaignListItemT,
  CampaignT,
  CreatedCampaignT,
  SubmissionT,
} from './campaigns.schemas.ts';

/** `publicUrl` is `PUBLIC_URL`: the campaign's public link is `{publicUrl}/c/{slug}`. */
export function toCampaign(row: CampaignRow, publicUrl: string): CampaignT {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    url: `${publicUrl}/c/${row.slug}`,
    status: row.status as CampaignT['status'],
    submissionCount: row.submission_count,
    maxSubmissions: row.max_submissions,
    collectPhone: row.collect_phone === 1,
    requireOtp: row.require_otp === 1,
    requireKyc: row.require_kyc === 1,
    expiresAt: row.expires_at,
    brandColor: row.brand_color,
    redirectUrl: row.redirect_url,
    welcomeTitle: row.welcome_title,
    welcomeMessage: row.welcome_message,
    locale: row.locale,
    templateId: row.template_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toCampaignListItem(row: CampaignRow, publicUrl: string): CampaignListItemT {
  const c = toCampaign(row, publicUrl);
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    url: c.url,
    status: c.status,
    submissionCount: c.submissionCount,
    maxSubmissions: c.maxSubmissions,
    collectPhone: c.collectPhone,
    requireOtp: c.requireOtp,
    expiresAt: c.expiresAt,
    brandColor: c.brandColor,
    templateId: c.templateId,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function toCreatedCampaign(row: CampaignRow, publicUrl: string): CreatedCampaignT {
  const c = toCampaign(row, publicUrl);
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    url: c.url,
    status: c.status,
    maxSubmissions: c.maxSubmissions,
    expiresAt: c.expiresAt,
    collectPhone: c.collectPhone,
    requireOtp: c.requireOtp,
    brandColor: c.brandColor,
    redirectUrl: c.redirectUrl,
    templateId: c.templateId,
    createdAt: c.createdAt,
  };
}

export function toSubmission(
  doc: {
    id: string;
    name: string;
    status: string;
    completed_at: string | null;
    created_at: string;
  },
  signers: SignerRow[],
): SubmissionT {
  return {
    id: doc.id,
    name: doc.name,
    status: doc.status as SubmissionT['status'],
    completedAt: doc.completed_at,
    createdAt: doc.created_at,
    signers: signers.map((s) => ({
      id: s.id,
      name: s.name,
      email: s.email,
      status: s.status as SubmissionT['signers'][number]['status'],
      signedAt: s.signed_at,
    })),
  };
}
