import { isEmbeddedSigner } from '../documents-core/signers.rules.ts';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { invitationMail } from '../../mail/templates.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { isOpenDocument } from '../documents-core/document-status.ts';
import { type Actor, requireDocument } from '../documents-core/document-access.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { isFinishedSigner } from '../documents-core/signer-status.ts';
import { findSigner } from '../documents-core/signers.repository.ts';
import {
  accessCodeMatches,
  accessSubject,
  issueSession,
  MAX_ACCESS_CODE_FAILURES,
  SESSION_HEADER,
  sessionValid,
} from './access-codes.ts';
import { clearTries, linkLocked, refundTry, signerSubject, takeTry } from './code-failures.ts';
import * as repo from './signing.repository.ts';
import { issueLink, resolveToken, revokeSigningLinks } from './signing-links.ts';
import { requireOpen } from '../documents-core/signing-rules.ts';

/**
 * `POST /api/v1/signing/{token}/access`: trades the signer's access code for a signing session of
 * one hour. Each try is audited; the fifth wrong code locks every link of the signer (403
 * `link_locked`) until the sender issues a new link or resends the invitation.
 */
export async function enterAccessCode(
  deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>,
  token: string,
  accessCode: string,
  meta: RequestMeta,
): Promise<{ session: string; expiresAt: string }> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  if (!signer.access_code_hash)
    throw invalidState('This signer has no access code: open the document without one');
  const now = deps.clock.now();
  const subject = accessSubject(signer.id);
  // The try is taken before the comparison, in one statement: codes tried at once cannot pass the limit together.
  const used = await takeTry(deps.db, subject, now.toISOString(), MAX_ACCESS_CODE_FAILURES);
  if (used === null)
    throw linkLocked(
      'Too many wrong access codes were tried with this signing link; it is locked until the sender sends you a new link',
    );
  const audit = { orgId: doc.org_id, documentId: doc.id, meta };
  if (!accessCodeMatches(deps.secret, signer, accessCode)) {
    const left = MAX_ACCESS_CODE_FAILURES - used;
    await writeAudit(deps.db, deps.clock, {
      ...audit,
      action: 'signer.access_code_failed',
      details: `Wrong access code for ${signer.name} <${signer.email}> (${used} of ${MAX_ACCESS_CODE_FAILURES})${left === 0 ? '; links locked' : ''}`,
    });
    if (left === 0)
      throw linkLocked(
        'The access code is wrong. Too many wrong codes were tried: this link is locked until the sender sends you a new link',
      );
    throw new AppError(
      'invalid_access_code',
      `The access code is wrong; ${left} ${left === 1 ? 'try' : 'tries'} left before this link is locked`,
    );
  }
  await refundTry(deps.db, subject);
  await writeAudit(deps.db, deps.clock, {
    ...audit,
    action: 'signer.authenticated',
    details: `${signer.name} <${signer.email}> entered the access code`,
  });
  return issueSession(deps.secret, signer, now.getTime());
}

/**
 * An onRequest hook for the routes of a signing token (`:token`): a signer with an access code
 * must send the session of `POST …/access` in `X-Signing-Session` (401 `access_code_required`).
 * Download links of the signed copy are not signing links and need none. Routes with
 * `config.signingSession === false` (the access route itself) are left alone.
 */
export function requireSigningSession(deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = (request.params as { token?: string } | undefined)?.token;
    if (token === undefined || request.routeOptions.config.signingSession === false) return;
    const { signer, purpose } = await resolveToken(deps.db, deps, token, ['sign', 'download']);
    if (purpose !== 'sign' || !signer.access_code_hash) return;
    const header = request.headers[SESSION_HEADER];
    const session = Array.isArray(header) ? header[0] : header;
    if (!sessionValid(deps.secret, signer, session, deps.clock.now().getTime()))
      throw new AppError(
        'access_code_required',
        session
          ? 'The signing session has ended; enter the access code again'
          : 'Enter the access code the sender gave you (POST …/access, then send X-Signing-Session)',
      );
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: a signing-token route reachable without the access code's session (the access route). */
    signingSession?: false;
  }
}

/**
 * `POST /api/v1/documents/{id}/signers/{signerId}/resend`: mails the signer a fresh invitation
 * with a new link. Every earlier link of the signer stops working, and its wrong tries (one-time
 * and access codes) are forgotten, so this is also how the sender unlocks a locked signer.
 */
export async function resendInvitation(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  signerId: string,
): Promise<{ signerId: string; sentTo: string; expiresAt: string }> {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await requireDocument(trx, actor.orgId, documentId);
    const signer = await findSigner(trx, documentId, signerId);
    if (!signer) throw notFound('Signer');
    if (!isOpenDocument(doc.status))
      throw invalidState(`Cannot resend the invitation: the document is ${doc.status}`);
    if (signer.role === 'cc') throw invalidState('Copy (cc) recipients do not sign');
    if (isFinishedSigner(signer.status))
      throw invalidState(`Cannot resend the invitation: the signer is ${signer.status}`);
    if (isEmbeddedSigner(signer))
      throw invalidState(
        'The signer is embedded (delivery "embedded") and gets no mail; create a link with POST /api/v1/documents/{id}/signers/{signerId}/link',
      );
    await revokeSigningLinks(trx, deps, signer.id);
    const link = await issueLink(trx, deps, doc, signer);
    await clearTries(trx, signerSubject(signer.id));
    await clearTries(trx, accessSubject(signer.id));
    const org = await orgMailOf(trx, doc.org_id);
    const yourTurn = signer.status === 'sent' || signer.status === 'viewed';
    await enqueueJob(trx, deps.clock, 'mail', {
      ...invitationMail({ doc, signer, ...org, yourTurn, link: link.url }),
      signingInvitation: { documentId: doc.id, signerId: signer.id },
    });
    await repo.updateSignerRow(trx, signer.id, {
      last_notified_at: deps.clock.now().toISOString(),
    });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: 'signer.invitation_resent',
      details: `Invitation sent again to ${signer.name} <${signer.email}>; earlier links retired, valid until ${link.expiresAt}`,
      meta: actor.meta,
    });
    return { signerId: signer.id, sentTo: signer.email, expiresAt: link.expiresAt };
  });
}
