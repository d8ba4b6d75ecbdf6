import type { AppDeps } from '../../deps.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import type { DocumentRow, Executor, SignerRow, SignerUpdate } from '../../db/database.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { invitationMail } from '../../mail/templates.ts';
import { writeAudit } from '../audit/audit.ts';
import { toSigner } from '../documents-core/documents.mappers.ts';
import { updateDocument } from '../documents-core/documents.repository.ts';
import { requireDocument, requireDraft, type Actor } from '../documents-core/document-access.ts';
import { reassignFields } from '../documents-core/fields.repository.ts';
import { lockDocumentForEdit } from '../documents-core/document-lock.ts';
import { onSignerCorrected } from '../signing/signing-flow.ts';
import * as repo from '../documents-core/signers.repository.ts';
import {
  buildSignerRows,
  CORRECTABLE_IN_FLIGHT,
  isEmbeddedSigner,
  MAX_SIGNERS,
} from '../documents-core/signers.rules.ts';
import { isFinishedSigner, moveSigner } from '../documents-core/signer-status.ts';
import { isOpenDocument } from '../documents-core/document-status.ts';
import type {
  ListSignersQueryT,
  SignerInputT,
  SignerPatchT,
} from '../documents-core/signers.schemas.ts';
import { hashAccessCode } from '../documents-core/access-code-hash.ts';
import { otpMethodOf, requireSmsPhone, storedPhone } from '../documents-core/signer-phone.ts';

/** 400 when the edited signer would get codes by SMS without a valid phone. */
const checkSmsPhone = (doc: DocumentRow, updated: SignerRow) =>
  requireSmsPhone(otpMethodOf(doc, updated), updated.phone, 'body.phone');

const who = (s: Pick<SignerRow, 'name' | 'email' | 'role' | 'position'>) =>
  `${s.role} ${s.name} <${s.email}> (order ${s.position})`;

/** A document's signers in signing order, one page at a time (like every list). */
export async function listDocumentSigners(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  documentId: string,
  query: ListSignersQueryT,
) {
  await requireDocument(deps.db, orgId, documentId);
  const { rows, meta } = await repo.listSignersPage(deps.db, documentId, {
    list: `signers:${documentId}`,
    limit: query.limit,
    cursor: query.cursor,
  });
  return { data: rows.map(toSigner), meta };
}

/** Adds a signer to a draft; `order` defaults to after the last one and must be free. */
export async function addSigner(
  deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>,
  actor: Actor,
  documentId: string,
  input: SignerInputT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    requireDraft(doc, 'add a signer');
    const existing = await repo.listSigners(trx, documentId);
    if (existing.length >= MAX_SIGNERS) {
      throw new AppError('limit_reached', `A document has at most ${MAX_SIGNERS} signers`);
    }
    const now = deps.clock.now().toISOString();
    const [row] = buildSignerRows(
      documentId,
      [input],
      existing,
      now,
      '',
      deps.secret,
      doc.otp_method,
    );
    await repo.insertSigners(trx, [row]);
    await updateDocument(trx, documentId, { updated_at: now });
    const signer = row as SignerRow;
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId,
      action: 'signer.added',
      details: `Added ${who(signer)}`,
      meta: actor.meta,
    });
    return toSigner(signer);
  });
}

async function requireSigner(
  trx: Executor,
  documentId: string,
  signerId: string,
): Promise<SignerRow> {
  const signer = await repo.findSigner(trx, documentId, signerId);
  if (!signer) throw notFound('Signer');
  return signer;
}

/** The changes `input` makes to `signer`, leaving out fields given with their current value. */
function diff(signer: SignerRow, input: SignerPatchT, secret: Buffer): SignerUpdate {
  const changes: SignerUpdate = {};
  if (input.name !== undefined && input.name !== signer.name) changes.name = input.name;
  const email = input.email?.toLowerCase();
  if (email !== undefined && email !== signer.email) changes.email = email;
  if (input.role !== undefined && input.role !== signer.role) changes.role = input.role;
  if (input.order !== undefined && input.order !== signer.position) changes.position = input.order;
  if (input.group !== undefined && input.group !== (signer.signing_group ?? null))
    changes.signing_group = input.group;
  const phone = input.phone === undefined ? undefined : storedPhone(input.phone);
  if (phone !== undefined && phone !== signer.phone) changes.phone = phone;
  if (input.otpMethod !== undefined && input.otpMethod !== (signer.otp_method ?? null))
    changes.otp_method = input.otpMethod;
  if (input.locale !== undefined) {
    const locale = checkOptionalLocale(input.locale, 'body.locale');
    if (locale !== signer.locale) changes.locale = locale;
  }
  if (input.delivery !== undefined) {
    const delivery = input.delivery === 'embedded' ? 'embedded' : null;
    if (delivery !== (signer.delivery ?? null)) changes.delivery = delivery;
  }
  // Write-only: a code is a change unless it hashes to the one stored.
  if (input.accessCode !== undefined) {
    const hash =
      input.accessCode === null ? null : hashAccessCode(secret, signer.id, input.accessCode);
    if (hash !== (signer.access_code_hash ?? null)) changes.access_code_hash = hash;
  }
  return changes;
}

const WORD_OF: Record<string, string> = {
  position: 'order',
  signing_group: 'group',
  access_code_hash: 'access code',
};
const changedNames = (changes: SignerUpdate) =>
  Object.keys(changes)
    .map((k) => WORD_OF[k] ?? k)
    .sort()
    .join(', ');

/**
 * Edits a signer. In `draft` every field may change; a new `order` must be free, and the fields
 * assigned to the signer follow it to the new order. Once sent (`pending`, `action_required`)
 * only `name`, `email`, `phone` and `accessCode` may be corrected, for a signer who has not acted yet: the corrected
 * signer gets a fresh invitation, committed with the change. A request that changes nothing
 * is answered with the signer as it is, without an audit entry or mail.
 */
export async function updateSigner(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'secret'>,
  actor: Actor,
  documentId: string,
  signerId: string,
  input: SignerPatchT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    const signer = await requireSigner(trx, documentId, signerId);
    if (doc.status === 'draft') return editDraftSigner(deps, trx, actor, doc, signer, input);
    if (isOpenDocument(doc.status)) return correctSentSigner(deps, trx, actor, doc, signer, input);
    throw invalidState(`Cannot edit signers: the document is ${doc.status}`);
  });
}

async function editDraftSigner(
  deps: Pick<AppDeps, 'clock' | 'secret'>,
  trx: Executor,
  actor: Actor,
  doc: DocumentRow,
  signer: SignerRow,
  input: SignerPatchT,
) {
  const changes = diff(signer, input, deps.secret);
  if (Object.keys(changes).length === 0) return toSigner(signer);
  checkSmsPhone(doc, { ...signer, ...changes } as SignerRow);
  const now = deps.clock.now().toISOString();
  let moved = 0;
  if (changes.position !== undefined) {
    const holder = await repo.findSignerAtOrder(
      trx,
      signer.document_id,
      changes.position as number,
    );
    if (holder) {
      throw new AppError('validation_error', `Signer order ${changes.position} is already taken`, [
        { path: 'body.order', message: `${changes.position} is already taken by another signer` },
      ]);
    }
    moved = await reassignFields(
      trx,
      signer.document_id,
      signer.position,
      changes.position as number,
      now,
    );
  }
  await repo.updateSigner(trx, signer.id, { ...changes, updated_at: now });
  await updateDocument(trx, signer.document_id, { updated_at: now });
  const updated = { ...signer, ...changes, updated_at: now } as SignerRow;
  const followed = moved > 0 ? `; ${moved} field(s) moved to order ${updated.position}` : '';
  await writeAudit(trx, deps.clock, {
    orgId: actor.orgId,
    documentId: signer.document_id,
    action: 'signer.updated',
    details: `Updated ${who(updated)}: changed ${changedNames(changes)}${followed}`,
    meta: actor.meta,
  });
  return toSigner(updated);
}

async function correctSentSigner(
  deps: Pick<AppDeps, 'config' | 'clock' | 'secret'>,
  trx: Executor,
  actor: Actor,
  doc: DocumentRow,
  signer: SignerRow,
  input: SignerPatchT,
) {
  const refused = Object.keys(input).filter((k) => !CORRECTABLE_IN_FLIGHT.includes(k));
  if (refused.length > 0) {
    throw invalidState(
      `The document is ${doc.status}: only name, email, phone and access code can be corrected, not ${refused.sort().join(', ')}`,
    );
  }
  if (isFinishedSigner(signer.status)) {
    throw invalidState(`Cannot correct a signer who is ${signer.status}`);
  }
  const changes = diff(signer, input, deps.secret);
  if (Object.keys(changes).length === 0) return toSigner(signer);
  checkSmsPhone(doc, { ...signer, ...changes } as SignerRow);
  const now = deps.clock.now().toISOString();
  await repo.updateSigner(trx, signer.id, { ...changes, updated_at: now });
  // Whoever reads the new address has not opened the document yet.
  const unseen = changes.email !== undefined && signer.status === 'viewed';
  if (unseen) await moveSigner(trx, signer.id, ['viewed'], 'sent', {});
  await updateDocument(trx, doc.id, { updated_at: now });
  const updated: SignerRow = {
    ...signer,
    ...changes,
    status: unseen ? 'sent' : signer.status,
    updated_at: now,
  };
  const yourTurn =
    updated.role !== 'cc' && (updated.status === 'sent' || updated.status === 'viewed');
  const org = await orgMailOf(trx, actor.orgId);
  // Revokes the old address's links, clears a bounce (possibly resuming the document) and gives a fresh link.
  const link = await onSignerCorrected(trx, deps, {
    doc,
    signer: updated,
    emailChanged: changes.email !== undefined,
    phoneChanged: changes.phone !== undefined,
    meta: actor.meta,
  });
  const embedded = isEmbeddedSigner(updated);
  if (!embedded)
    await enqueueJob(trx, deps.clock, 'mail', {
      ...invitationMail({ doc, signer: updated, ...org, yourTurn, link }),
      ...(link ? { signingInvitation: { documentId: doc.id, signerId: updated.id } } : {}),
    });
  const was = changes.email !== undefined ? ` (was <${signer.email}>)` : '';
  await writeAudit(trx, deps.clock, {
    orgId: actor.orgId,
    documentId: doc.id,
    action: 'signer.updated',
    details: `Corrected ${changedNames(changes)} of ${who(updated)}${was}${embedded ? '' : '; invitation sent again'}`,
    meta: actor.meta,
  });
  return toSigner(updated);
}

/**
 * Removes a signer from a draft. Fields assigned to its order stay (sending refuses them until a
 * signer takes that order or they are reassigned), so a replaced signer keeps its placements.
 */
export async function removeSigner(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  signerId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    const signer = await requireSigner(trx, documentId, signerId);
    requireDraft(doc, 'remove a signer');
    const now = deps.clock.now().toISOString();
    await repo.deleteSigner(trx, signer.id);
    await updateDocument(trx, documentId, { updated_at: now });
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId,
      action: 'signer.removed',
      details: `Removed ${who(signer)}`,
      meta: actor.meta,
    });
  });
}
