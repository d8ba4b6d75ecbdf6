import { createHash, randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Selectable } from 'kysely';
import type { BuilderLinksTable, Executor } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { CredentialError } from '../../http/credential-error.ts';
import { type LocaleCode, resolveLocale } from '../../i18n/locales.ts';
import { parseEmbedOrigins } from '../orgs/embed-origins.ts';

/*
 * Builder links are capabilities like signing links: `PUBLIC_URL/build/{token}` with 32 random
 * bytes (base64url) of which only the SHA-256 is stored. A link opens the builder of one draft
 * document or one template for an hour; issuing one never voids another, each expires on its own.
 */

/** How long a builder link works. */
const BUILDER_LINK_LIFETIME_MS = 3600 * 1000;

export type BuilderLinkRow = Selectable<BuilderLinksTable>;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Issues a link to the builder of a document or template; the raw token exists only in the URL. */
export async function issueBuilderLink(
  deps: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  orgId: string,
  target: { documentId: string } | { templateId: string },
): Promise<{ url: string; expiresAt: string }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + BUILDER_LINK_LIFETIME_MS).toISOString();
  await deps.db
    .insertInto('builder_links')
    .values({
      token_hash: hashToken(token),
      org_id: orgId,
      document_id: 'documentId' in target ? target.documentId : null,
      template_id: 'templateId' in target ? target.templateId : null,
      expires_at: expiresAt,
      created_at: now.toISOString(),
    })
    .execute();
  return { url: `${deps.config.publicUrl}/build/${token}`, expiresAt };
}

const findLink = (db: Executor, token: string) =>
  db
    .selectFrom('builder_links')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();

/**
 * The link a token names, or 403 `forbidden`: a token never issued counts as a failed
 * authentication of the address; an expired one was genuine and does not.
 */
export async function resolveBuilderLink(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  token: string,
): Promise<BuilderLinkRow> {
  const message = 'This builder link is not valid or has expired; ask for a new one';
  const row = await findLink(deps.db, token);
  if (!row) throw new CredentialError('forbidden', message);
  if (Date.parse(row.expires_at) <= deps.clock.now().getTime())
    throw new AppError('forbidden', message);
  return row;
}

/**
 * What the builder page of a token needs before its script runs: whether the link is live, who
 * may frame the page, and the locale it is shown in (the document's, else the organization's).
 */
export async function pageOfBuilderLink(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  token: string,
): Promise<{ state: 'unknown' | 'expired' | 'live'; embedOrigins: string[]; locale: LocaleCode }> {
  const row = await deps.db
    .selectFrom('builder_links')
    .innerJoin('organizations', 'organizations.id', 'builder_links.org_id')
    .leftJoin('documents', 'documents.id', 'builder_links.document_id')
    .select([
      'builder_links.expires_at',
      'organizations.embed_origins',
      'organizations.default_locale',
      'documents.locale as document_locale',
    ])
    .where('builder_links.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row) return { state: 'unknown', embedOrigins: [], locale: resolveLocale(undefined) };
  const live = Date.parse(row.expires_at) > deps.clock.now().getTime();
  return {
    state: live ? 'live' : 'expired',
    embedOrigins: parseEmbedOrigins(row.embed_origins),
    locale: resolveLocale(row.document_locale, row.default_locale),
  };
}
