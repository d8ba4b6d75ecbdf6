import type { AppDeps } from '../../deps.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { isEmbeddedSigner } from '../documents-core/signers.rules.ts';
import { writeAudit } from '../audit/audit.ts';
import { requireDocument, type Actor } from '../documents-core/document-access.ts';
import { isOpenDocument } from '../documents-core/document-status.ts';
import { isFinishedSigner } from '../documents-core/signer-status.ts';
import { findSigner } from '../documents-core/signers.repository.ts';
import { issueLink, LINK_LIFETIME_MS } from './signing-links.ts';
import { clearTries, signerSubject } from './code-failures.ts';
import { accessSubject } from './access-codes.ts';
import { LINK_EXPIRES_IN, type SigningLinkBodyT } from './signer-access.schemas.ts';
import type { SigningLinkT } from './signing.schemas.ts';

/** A link's life in milliseconds: `expiresIn` within the signer's bounds, else their default. */
function lifetimeOf(embedded: boolean, expiresIn: number | undefined): number {
  if (expiresIn === undefined)
    return embedded ? LINK_EXPIRES_IN.embeddedDefault * 1000 : LINK_LIFETIME_MS;
  if (embedded && expiresIn > LINK_EXPIRES_IN.embeddedMax) {
    const message = `must be at most ${LINK_EXPIRES_IN.embeddedMax} seconds (24 hours) for an embedded signer`;
    throw new AppError('validation_error', `body.expiresIn ${message}`, [
      { path: 'body.expiresIn', message },
    ]);
  }
  return expiresIn * 1000;
}

/**
 * A fresh signing link for a signer of an open document (embedded signing). Earlier links of the
 * signer stay valid (see signing-links.ts). An embedded signer's link lives an hour unless
 * `expiresIn` says otherwise (60 s to 24 h); a signer reached by email's lives 30 days by default.
 */
export async function createSignerLink(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  signerId: string,
  input: SigningLinkBodyT = {},
): Promise<SigningLinkT> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await requireDocument(trx, actor.orgId, documentId);
    const signer = await findSigner(trx, documentId, signerId);
    if (!signer) throw notFound('Signer');
    if (!isOpenDocument(doc.status))
      throw invalidState(`Cannot create a signing link: the document is ${doc.status}`);
    if (signer.role === 'cc') throw invalidState('Copy (cc) recipients do not sign');
    if (isFinishedSigner(signer.status))
      throw invalidState(`Cannot create a signing link: the signer is ${signer.status}`);
    const lifetime = lifetimeOf(isEmbeddedSigner(signer), input.expiresIn);
    const link = await issueLink(trx, deps, doc, signer, 'sign', lifetime);
    // A new link from the sender is what unlocks a signer who tried too many wrong codes.
    await clearTries(trx, signerSubject(signer.id));
    await clearTries(trx, accessSubject(signer.id));
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: 'signer.link_created',
      details: `Signing link created for ${signer.name} <${signer.email}>, valid until ${link.expiresAt}`,
      meta: actor.meta,
    });
    return link;
  });
}
