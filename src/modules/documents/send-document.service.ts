import { isEmbeddedSigner } from '../documents-core/signers.rules.ts';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, Executor, FieldRow, SignerRow } from '../../db/database.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import { enqueueJobs } from '../../queue/queue.ts';
import { invitationMail } from '../../mail/templates.ts';
import { writeAudits } from '../audit/audit.ts';
import { emitEvents } from '../events/emit.ts';
import { fieldBeyondPages } from '../documents-core/fields.rules.ts';
import { listFieldsOfDocuments } from '../documents-core/fields.repository.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { moveSigners } from '../documents-core/signer-status.ts';
import { listSignersOfDocuments } from '../documents-core/signers.repository.ts';
import { otpMethodOf, requireSmsPhone } from '../documents-core/signer-phone.ts';
import { issueLinks } from '../signing/signing-links.ts';
import * as repo from '../documents-core/documents.repository.ts';
import { moveDocuments } from '../documents-core/document-status.ts';
import { toDocumentListItem } from '../documents-core/documents.mappers.ts';
import { requireDocument, requireDraft, type Actor } from '../documents-core/document-access.ts';
import { settlePendingUpload } from '../documents-core/pending-upload.ts';
import { lockDocumentsForEdit } from '../documents-core/document-lock.ts';
import { currentTurn } from '../documents-core/signing-rules.ts';

/**
 * Sends a draft for signature: every recipient is emailed, the signer(s) whose turn it is become
 * `sent` (all signers in parallel mode, those of the lowest group in sequential mode). A pending direct
 * upload is settled first; one still pending then is dropped, since only drafts take files.
 */
export async function sendDocument(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'pdf'>,
  actor: Actor,
  id: string,
) {
  await settlePendingUpload(deps, await requireDocument(deps.db, actor.orgId, id));
  return deps.db.transaction().execute((trx) => sendDraft(trx, deps, actor, id));
}

/**
 * The send of `sendDocument` inside the caller's transaction. Refusals are the send
 * preconditions of /openapi.json (`missing_signers`, `missing_fields`, `missing_file`).
 */
async function sendDraft(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  actor: Actor,
  id: string,
) {
  return (await sendDrafts(trx, deps, actor, [id]))[0];
}

/**
 * sendDraft for several drafts of the organization inside the caller's transaction, in the same
 * dozen statements whatever their number (a bulk send creates and sends a group of rows' documents
 * in one transaction): the first refusal of any of them throws, and the caller's transaction then
 * sends none.
 */
export async function sendDrafts(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  actor: Actor,
  ids: string[],
) {
  const docs = await lockDocumentsForEdit(trx, actor.orgId, ids);
  for (const doc of docs) requireDraft(doc, 'send');
  const signersOf = await listSignersOfDocuments(trx, ids);
  const fieldsOf = await listFieldsOfDocuments(trx, ids);
  for (const doc of docs) checkSendable(deps, doc, signersOf.get(doc.id)!, fieldsOf.get(doc.id)!);
  const now = deps.clock.now().toISOString();
  const moved = await moveDocuments(trx, ids, ['draft'], 'pending', {
    sent_at: now,
    updated_at: now,
    ...repo.NO_PENDING_UPLOAD,
  });
  if (moved !== ids.length) throw invalidState('The document is no longer a draft');
  const org = await orgMailOf(trx, actor.orgId);
  // Whose turn it is: every signer and approver in parallel mode, the lowest group in sequential mode.
  const invited = docs.flatMap((doc) => {
    const signers = signersOf.get(doc.id)!;
    const first = new Set(currentTurn(doc, signers).map((s) => s.id));
    return signers.map((signer) => ({ doc, signer, mayAct: first.has(signer.id) }));
  });
  await moveSigners(
    trx,
    invited.filter((i) => i.mayAct).map((i) => i.signer.id),
    ['pending'],
    'sent',
    { last_notified_at: now, updated_at: now },
  );
  // Signers and approvers get their secret link; a final delivery failure makes the document action_required.
  // Embedded signers get neither mail nor link here: the sender asks for their links (README "Embedding").
  const mailed = invited.filter((i) => !isEmbeddedSigner(i.signer));
  const withLink = mailed.filter((i) => i.signer.role !== 'cc');
  const links = new Map(
    (await issueLinks(trx, deps, withLink)).map((link, k) => [withLink[k].signer.id, link.url]),
  );
  await enqueueJobs(
    trx,
    deps.clock,
    'mail',
    mailed.map(({ doc, signer, mayAct }) => {
      const link = links.get(signer.id);
      return {
        ...invitationMail({ doc, signer, ...org, yourTurn: mayAct, link }),
        ...(link ? { signingInvitation: { documentId: doc.id, signerId: signer.id } } : {}),
      };
    }),
  );
  await writeAudits(
    trx,
    deps.clock,
    docs.map((doc) => ({
      orgId: actor.orgId,
      documentId: doc.id,
      action: 'document.sent',
      details: `Sent to ${signersOf
        .get(doc.id)!
        .map((s) => s.email)
        .join(', ')}`,
      meta: actor.meta,
    })),
  );
  const sent = await repo.findDocumentsWithCounts(trx, actor.orgId, ids);
  await emitEvents(trx, deps.clock, actor.orgId, 'document.sent', sent.map(toDocumentListItem));
  return docs.map((doc) => ({
    id: doc.id,
    status: 'pending',
    signerCount: signersOf.get(doc.id)!.length,
    sentAt: now,
  }));
}

/** The send preconditions for one draft, its signers and fields. */
function checkSendable(
  deps: Pick<AppDeps, 'clock'>,
  doc: DocumentRow,
  signers: SignerRow[],
  fields: FieldRow[],
): void {
  if (signers.length === 0)
    throw new AppError('missing_signers', 'Add at least one signer before sending');
  if (fields.length === 0)
    throw new AppError('missing_fields', 'Add at least one field before sending');
  if (!doc.file_key) throw new AppError('missing_file', 'Upload the document file before sending');
  const signing = signers.filter((s) => s.role !== 'cc');
  if (signing.length === 0)
    throw new AppError(
      'missing_signers',
      'Add at least one signer or approver (cc recipients do not sign)',
    );
  // The document's otpMethod may have become `sms` after its signers were added.
  for (const s of signing) requireSmsPhone(otpMethodOf(doc, s), s.phone, `signers.${s.id}.phone`);
  const orders = new Set(signing.map((s) => s.position));
  const orphan = fields.find((f) => !orders.has(f.assigned_to));
  if (orphan) {
    throw invalidState(
      `Field ${orphan.id} is assigned to order ${orphan.assigned_to}, which no signer or approver has`,
    );
  }
  const offPage = fieldBeyondPages(fields, doc.page_count);
  if (offPage) {
    throw invalidState(
      `Field ${offPage.id} is on page ${offPage.page}, but the file has ${doc.page_count} page(s); move or delete the field`,
    );
  }
  if (doc.expires_at && Date.parse(doc.expires_at) <= deps.clock.now().getTime()) {
    throw invalidState('The document expiresAt has passed; set a later one before sending');
  }
}
