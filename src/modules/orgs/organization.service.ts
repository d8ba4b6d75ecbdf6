import { createHash } from 'node:crypto';
import { parseConsentText } from './consent-text.ts';
import type { Executor, OrganizationRow } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { checkEmbedOrigins, parseEmbedOrigins } from './embed-origins.ts';
import { checkLocale, checkTimeZone } from '../../http/locale-input.ts';
import {
  MAX_LOGO_BYTES,
  type Organization,
  type UpdateOrganizationInput,
} from './organization.schemas.ts';

/** What pages and mail show of an organization. */
interface OrgBrand {
  name: string;
  brandColor: string | null;
  logoUrl: string | null;
  replyTo: string | null;
}

/** The logo's public address; the version changes with the image, so it may be cached for good. */
function logoUrlOf(publicUrl: string, org: Pick<OrganizationRow, 'id' | 'logo'>): string | null {
  if (!org.logo) return null;
  const version = createHash('sha256').update(org.logo).digest('hex').slice(0, 12);
  return `${publicUrl}/logos/${org.id}?v=${version}`;
}

export function toOrganization(publicUrl: string, row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    adminEmail: row.admin_email,
    brandColor: row.brand_color,
    logoUrl: logoUrlOf(publicUrl, row),
    replyTo: row.reply_to,
    embedOrigins: parseEmbedOrigins(row.embed_origins),
    defaultLocale: row.default_locale,
    timeZone: row.time_zone,
    requireConsent: Number(row.require_consent) === 1,
    consentText: parseConsentText(row.consent_text),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function findOrganization(db: Executor, orgId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
}

/** Name, colour, logo and reply-to of an organization, for a page or a mail. */
export async function orgBrandOf(
  db: Executor,
  publicUrl: string,
  orgId: string,
): Promise<OrgBrand> {
  const row = await findOrganization(db, orgId);
  if (!row) return { name: 'Signet', brandColor: null, logoUrl: null, replyTo: null };
  return {
    name: row.name,
    brandColor: row.brand_color,
    logoUrl: logoUrlOf(publicUrl, row),
    replyTo: row.reply_to,
  };
}

export async function getOrganization(
  db: Executor,
  publicUrl: string,
  orgId: string,
): Promise<Organization> {
  const row = await findOrganization(db, orgId);
  if (!row) throw notFound('Organization');
  return toOrganization(publicUrl, row);
}

/** PNG or JPEG by magic number; anything else (or an image over the limit) is refused. */
function checkLogo(dataUrl: string): void {
  const [, type, base64] = /^data:image\/(png|jpeg);base64,(.*)$/s.exec(dataUrl) ?? [];
  const bytes = Buffer.from(base64 ?? '', 'base64');
  const isPng = bytes
    .subarray(0, 8)
    .equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const isJpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  if (bytes.length > MAX_LOGO_BYTES)
    throw new AppError('payload_too_large', `logo is larger than ${MAX_LOGO_BYTES / 1024} KB`);
  if ((type === 'png' && !isPng) || (type === 'jpeg' && !isJpeg)) {
    throw new AppError(
      'validation_error',
      `logo is not a ${type === 'png' ? 'PNG' : 'JPEG'} image`,
      [{ path: 'body.logo', message: 'must be the bytes of the declared image type' }],
    );
  }
}

/**
 * Applies a change to an organization (the API's PATCH and `signet org update`); its logo and
 * embed origins are checked first (origins over plain http only when `production` is false).
 */
export async function updateOrganizationRow(
  db: Executor,
  orgId: string,
  input: UpdateOrganizationInput,
  now: Date,
  production = true,
): Promise<OrganizationRow> {
  if (typeof input.logo === 'string') checkLogo(input.logo);
  if (input.consentText && typeof input.consentText === 'object')
    for (const locale of Object.keys(input.consentText))
      if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(locale))
        throw new AppError(
          'validation_error',
          `consentText: "${locale.slice(0, 40)}" is not a locale`,
          [{ path: 'body.consentText', message: 'keys must be locales such as en, de or pt-BR' }],
        );
  const embedOrigins =
    input.embedOrigins === undefined
      ? undefined
      : checkEmbedOrigins(input.embedOrigins, production);
  const defaultLocale =
    input.defaultLocale === undefined
      ? undefined
      : checkLocale(input.defaultLocale, 'body.defaultLocale');
  const timeZone =
    input.timeZone === undefined ? undefined : checkTimeZone(input.timeZone, 'body.timeZone');
  const row = await db
    .updateTable('organizations')
    .set({
      ...(input.name !== undefined && { name: input.name.trim() }),
      ...(input.adminEmail !== undefined && { admin_email: input.adminEmail }),
      ...(input.brandColor !== undefined && {
        brand_color: input.brandColor === null ? null : input.brandColor.toUpperCase(),
      }),
      ...(input.logo !== undefined && { logo: input.logo }),
      ...(input.replyTo !== undefined && { reply_to: input.replyTo }),
      ...(embedOrigins !== undefined && { embed_origins: JSON.stringify(embedOrigins) }),
      ...(defaultLocale !== undefined && { default_locale: defaultLocale }),
      ...(timeZone !== undefined && { time_zone: timeZone }),
      ...(input.requireConsent !== undefined && { require_consent: input.requireConsent ? 1 : 0 }),
      ...(input.consentText !== undefined && {
        consent_text: input.consentText === null ? null : JSON.stringify(input.consentText),
      }),
      updated_at: now.toISOString(),
    })
    .where('id', '=', orgId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Organization');
  return row;
}

/** The logo's bytes and type, for the public /logos route. */
export async function findLogo(
  db: Executor,
  orgId: string,
): Promise<{ contentType: string; bytes: Buffer } | null> {
  const row = await db
    .selectFrom('organizations')
    .select('logo')
    .where('id', '=', orgId)
    .executeTakeFirst();
  const [, type, base64] = /^data:(image\/(?:png|jpeg));base64,(.*)$/s.exec(row?.logo ?? '') ?? [];
  return type ? { contentType: type, bytes: Buffer.from(base64!, 'base64') } : null;
}
