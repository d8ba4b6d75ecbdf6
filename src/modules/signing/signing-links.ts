import { type LocaleCode, resolveLocale } from '../../i18n/locales.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, Executor, SignerRow } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { CredentialError } from '../../http/credential-error.ts';
import * as repo from './signing.repository.ts';
import { isLocked, linkLocked, signerSubject } from './code-failures.ts';
import { accessLocked } from './access-codes.ts';
import { parseEmbedOrigins } from '../orgs/embed-origins.ts';
import { requireOpenDocument } from '../documents-core/signing-rules.ts';
import { findDocumentById } from '../documents-core/documents.repository.ts';

/*
 * Signing links are capabilities: `PUBLIC_URL/sign/{token}` with 32 random bytes (base64url) that
 * only the SHA-256 of which is stored. A signer may hold several live links at once (the emailed
 * invitation, a "your turn" mail, reminders, embedded links from the API): issuing one never voids
 * another, so an embedded link does not break the link in the signer's mailbox. Every link of a
 * signer stops working once the signer has completed or declined, once the document leaves
 * `pending`/`action_required`, when it reaches its own `expiresAt`, and when the sender corrects
 * the signer's email address (`revokeSigningLinks`). When the signer hands over to someone else
 * (reassign-signing.ts), its live links are marked replaced and answer 410 `link_replaced`.
 */

/** A link lives 30 days, or until the document's `expiresAt` when that comes first. */
export const LINK_LIFETIME_MS = 30 * 24 * 3600 * 1000;

type LinkPurpose = 'sign' | 'download';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function linkExpiry(deps: Pick<AppDeps, 'clock'>, doc: DocumentRow, lifetimeMs: number): string {
  const cap = deps.clock.now().getTime() + lifetimeMs;
  const docExpiry = doc.expires_at ? Date.parse(doc.expires_at) : Infinity;
  return new Date(Math.min(cap, docExpiry)).toISOString();
}

/**
 * Issues a new secret link for the signer inside the caller's transaction; the raw token exists
 * only in the result. A signing link lives `lifetimeMs` (30 days unless the caller says otherwise:
 * an embedded signer's link from the API lives an hour by default), never past the document's expiry.
 */
export async function issueLink(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  doc: DocumentRow,
  signer: Pick<SignerRow, 'id'>,
  purpose: LinkPurpose = 'sign',
  lifetimeMs: number = LINK_LIFETIME_MS,
): Promise<{ url: string; expiresAt: string }> {
  return (await issueLinks(trx, deps, [{ doc, signer }], purpose, lifetimeMs))[0];
}

/** issueLink for several signers (of one or more documents) as one insert; the links in the same order. */
export async function issueLinks(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  holders: { doc: DocumentRow; signer: Pick<SignerRow, 'id'> }[],
  purpose: LinkPurpose = 'sign',
  lifetimeMs: number = LINK_LIFETIME_MS,
): Promise<{ url: string; expiresAt: string }[]> {
  const now = deps.clock.now().toISOString();
  const links = holders.map(({ doc, signer }) => {
    const token = randomBytes(32).toString('base64url');
    const expiresAt =
      purpose === 'download'
        ? new Date(deps.clock.now().getTime() + LINK_LIFETIME_MS).toISOString()
        : linkExpiry(deps, doc, lifetimeMs);
    const row = {
      token_hash: hashToken(token),
      signer_id: signer.id,
      document_id: doc.id,
      purpose,
      expires_at: expiresAt,
      revoked_at: null,
      created_at: now,
    };
    const url =
      purpose === 'sign'
        ? `${deps.config.publicUrl}/sign/${token}`
        : `${deps.config.publicUrl}/api/v1/signing/${token}/file`;
    return { row, url, expiresAt };
  });
  await repo.insertSigningTokens(
    trx,
    links.map((l) => l.row),
  );
  return links.map(({ url, expiresAt }) => ({ url, expiresAt }));
}

/** Voids every link of the signer (its address changed: links mailed to the old one must die). */
export async function revokeSigningLinks(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  signerId: string,
): Promise<void> {
  await repo.revokeSignerTokens(trx, signerId, deps.clock.now().toISOString());
}

/** The link of a signer who handed over: says so, and nothing of who took over. */
const linkReplaced = () =>
  new AppError(
    'link_replaced',
    'This signing link was handed over to someone else and no longer works; the new person received a link of their own',
  );

export const invalidLink = () =>
  new AppError(
    'forbidden',
    'This signing link is not valid or has expired; ask the sender for a new one',
  );

/** A token that was never issued: counted as a failed authentication of the address. */
const unknownLink = () =>
  new CredentialError(
    'forbidden',
    'This signing link is not valid or has expired; ask the sender for a new one',
  );

/**
 * The signer and document a token opens, or 403 `forbidden` for a forged, revoked or expired
 * token, or one of a purpose not in `accept`, or 410 `link_replaced` for a link of a signer who
 * handed over, or 403 `link_locked` for a signing link whose signer
 * tried too many wrong one-time or access codes. Says nothing about the document's or signer's status.
 * Only a token never issued counts against the address: a revoked or expired one was genuine.
 */
export async function resolveToken(
  db: Executor,
  deps: Pick<AppDeps, 'clock'>,
  token: string,
  accept: readonly LinkPurpose[] = ['sign'],
): Promise<{ signer: SignerRow; doc: DocumentRow; purpose: LinkPurpose }> {
  const row = await repo.findSigningToken(db, hashToken(token));
  if (!row) throw unknownLink();
  if (row.replaced_at) throw linkReplaced();
  if (!accept.includes(row.purpose as LinkPurpose) || row.revoked_at !== null) throw invalidLink();
  const [signer, doc, locked, accessCodeLocked] = await Promise.all([
    repo.findSignerById(db, row.signer_id),
    findDocumentById(db, row.document_id),
    row.purpose === 'sign' ? isLocked(db, signerSubject(row.signer_id)) : false,
    row.purpose === 'sign' ? accessLocked(db, row.signer_id) : false,
  ]);
  if (!signer || !doc || signer.document_id !== doc.id) throw invalidLink();
  if (locked || accessCodeLocked)
    throw linkLocked(
      `Too many wrong ${accessCodeLocked ? 'access codes' : 'codes'} were tried with this signing link; it is locked until the sender sends you a new link`,
    );
  if (Date.parse(row.expires_at) <= deps.clock.now().getTime()) {
    // Links are capped at the document's expiry: say that the document expired, not just the link.
    if (row.purpose === 'sign') requireOpenDocument(doc);
    throw invalidLink();
  }
  return { signer, doc, purpose: row.purpose as LinkPurpose };
}

/**
 * What the signing page of a token needs before its script runs: who may frame it, and the locale
 * its signer reads (signer, then document, then organization; English for a token that opens
 * nothing, whose page says so).
 */
export async function pageOfLink(
  db: Executor,
  token: string,
): Promise<{ embedOrigins: string[]; locale: LocaleCode; known: boolean }> {
  const row = await db
    .selectFrom('signing_tokens')
    .innerJoin('signers', 'signers.id', 'signing_tokens.signer_id')
    .innerJoin('documents', 'documents.id', 'signing_tokens.document_id')
    .innerJoin('organizations', 'organizations.id', 'documents.org_id')
    .select([
      'organizations.embed_origins',
      'organizations.default_locale',
      'documents.locale as document_locale',
      'signers.locale as signer_locale',
    ])
    .where('signing_tokens.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  return {
    embedOrigins: parseEmbedOrigins(row?.embed_origins),
    locale: resolveLocale(row?.signer_locale, row?.document_locale, row?.default_locale),
    known: row !== undefined,
  };
}
