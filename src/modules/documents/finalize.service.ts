import fs from 'node:fs';
import { resolveLocale } from '../../i18n/locales.ts';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppDeps } from '../../deps.ts';
import type { AttachmentRow, DocumentRow, Executor, SignerRow } from '../../db/database.ts';
import { completedMail } from '../../mail/templates.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import { emitEvent } from '../events/emit.ts';
import { listAttachments } from '../documents-core/documents.repository.ts';
import {
  isOpenDocument,
  moveDocument,
  OPEN_DOCUMENT_STATUSES,
} from '../documents-core/document-status.ts';
import { documentEventData } from '../documents-core/document-access.ts';
import { listFields } from '../documents-core/fields.repository.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { findDocumentById } from '../documents-core/documents.repository.ts';
import { issueLink } from '../signing/signing-links.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { isSigningRole, openSigners } from '../documents-core/signing-rules.ts';
import { enqueueJob, PermanentJobError } from '../../queue/queue.ts';
import { fieldTypeSpec } from '../documents-core/field-types.ts';
import type { FinalizeInput, FinalizeResult } from '../../pdf/finalize.ts';
import { finalizeInWorker } from '../../pdf/finalize-worker.ts';
import { WorkerLimitError } from '../../pdf/bounded-worker.ts';
import { PdfLimitError } from '../../pdf/syntax.ts';
import { documentTimeline } from '../audit/timeline.ts';
import type { AuthenticationMethod, FinalizeTimelineEntry } from '../../pdf/finalize-input.ts';
import { maskPhone, otpMethodOf } from '../documents-core/signer-phone.ts';

/**
 * How a signer proved access, for the certificate page: the link itself always, plus an access
 * code the sender gave out of band, plus the one-time code of the signer's `otpMethod` (else the
 * document's).
 */
function authenticationOf(doc: DocumentRow, signer: SignerRow): AuthenticationMethod[] {
  const methods: AuthenticationMethod[] = ['email_link'];
  if (signer.access_code_hash) methods.push('access_code');
  const otp = otpMethodOf(doc, signer);
  if (otp === 'email') methods.push('email_otp');
  if (otp === 'sms') methods.push('sms_otp');
  return methods;
}

/** Completion time: when the last signer or approver signed (the same on every run of the job). */
function completionTime(signers: SignerRow[]): string {
  return signers
    .filter(isSigningRole)
    .map((s) => s.signed_at ?? '')
    .sort()
    .at(-1)!;
}

function finalizeInput(
  doc: DocumentRow,
  sourcePath: string,
  completedAt: string,
  signers: SignerRow[],
  fields: Awaited<ReturnType<typeof listFields>>,
  attachments: AttachmentRow[],
  timeline: FinalizeTimelineEntry[],
  verifyUrl: string,
  org: { orgLocale: string | null; timeZone: string },
): FinalizeInput {
  const byId = new Map(attachments.map((a) => [a.id, a]));
  const signerName = new Map(signers.map((s) => [s.id, s.name]));
  return {
    sourcePath,
    document: {
      id: doc.id,
      name: doc.name,
      documentHash: doc.document_hash,
      shownHash: doc.shown_file_hash,
      completedAt,
      verifyUrl,
      // The certificate page speaks the document's locale, else the organization's.
      locale: resolveLocale(doc.locale, org.orgLocale),
      timeZone: org.timeZone,
    },
    signers: signers.filter(isSigningRole).map((s) => ({
      name: s.name,
      email: s.email,
      role: s.role,
      signedAt: s.signed_at,
      ipAddress: s.ip_address ?? '',
      userAgent: s.user_agent ?? '',
      geoCity: s.geo_city ?? '',
      geoCountry: s.geo_country ?? '',
      authentication: authenticationOf(doc, s),
      otpPhone: otpMethodOf(doc, s) === 'sms' && s.phone ? maskPhone(s.phone) : null,
      consent:
        s.consented_at && s.consent_sha256
          ? {
              at: s.consented_at,
              locale: s.consent_locale ?? '',
              sha256: s.consent_sha256,
              text: s.consent_text ?? '',
            }
          : null,
      signature:
        fields.find((f) => f.type === 'signature' && f.assigned_to === s.position && f.value)
          ?.value ?? null,
    })),
    fields: fields
      .filter((f) => f.value !== null && f.value !== '')
      // A file field shows the name of the file attached (its value is the attachment id).
      .map((f) => ({
        type: f.type,
        draw: fieldTypeSpec(f.type).draw,
        page: f.page,
        x: f.x,
        y: f.y,
        width: f.width,
        height: f.height,
        value: f.type === 'file' ? (byId.get(f.value!)?.name ?? f.value) : f.value,
      })),
    attachments: attachments.map((a) => ({
      name: a.name,
      contentType: a.content_type,
      fileSize: a.file_size,
      sha256: a.sha256,
      signerName: (a.signer_id && signerName.get(a.signer_id)) || '',
    })),
    timeline,
  };
}

/**
 * Every recipient gets the signed PDF: attached, or a 30-day download link when it is too large to
 * mail or the recipient's address was never proven (a visitor typed it on a public form and
 * entered no code from it): Signet attaches nothing to mail for an address nobody has shown to be
 * the reader's own.
 */
async function mailSignedCopies(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  doc: DocumentRow,
  key: string,
  size: number,
): Promise<void> {
  // The sender asked for none (`sendCompletedCopy: false`): its own site hands out the signed PDF.
  if (doc.send_completed_copy === 0) return;
  const org = await orgMailOf(trx, doc.org_id);
  const filename = `${doc.name.replace(/[\\/\r\n]/g, '_')} - Signed.pdf`;
  for (const recipient of await listSigners(trx, doc.id)) {
    const linkBecause =
      recipient.email_unproven === 1
        ? 'unproven_address'
        : size > deps.config.mailAttachmentMaxBytes
          ? 'too_large'
          : undefined;
    if (linkBecause) {
      const { url } = await issueLink(trx, deps, doc, recipient, 'download');
      await enqueueJob(
        trx,
        deps.clock,
        'mail',
        completedMail({ doc, recipient, ...org, downloadLink: url, linkBecause }),
      );
    } else {
      await enqueueJob(trx, deps.clock, 'mail', {
        ...completedMail({ doc, recipient, ...org }),
        storageAttachments: [{ filename, storageKey: key, contentType: 'application/pdf' }],
      });
    }
  }
}

/**
 * Job `finalize`: produces the signed PDF of a document whose signers and approvers have all
 * completed, stores it under a key derived from its hash, then in one transaction records it and
 * moves the document to `completed` (audit, event, mails): a completed document always has its
 * signed file. Safe to run twice: a run that finds the document no longer open stops, and a run
 * that loses the race removes the file it stored.
 */
export async function finalizeDocument(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'metrics' | 'certificate' | 'pdf'>,
  documentId: string,
): Promise<void> {
  const doc = await findDocumentById(deps.db, documentId);
  if (!doc || !isOpenDocument(doc.status)) return;
  const signers = await listSigners(deps.db, doc.id);
  if (openSigners(signers).length > 0) return;
  if (!doc.file_key) throw new PermanentJobError(`the document has no file to seal`);
  const completedAt = completionTime(signers);
  const fields = await listFields(deps.db, doc.id);
  const attachments = await listAttachments(deps.db, doc.id);

  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'signet-finalize-'));
  try {
    const sourcePath = path.join(dir, 'source.pdf');
    const outputPath = path.join(dir, 'signed.pdf');
    await pipeline(
      await deps.storage.get(doc.file_key),
      fs.createWriteStream(sourcePath, { mode: 0o600 }),
    );
    const stopTimer = deps.metrics.finalizeDuration.startTimer();
    let sealed: FinalizeResult;
    try {
      sealed = await finalizeInWorker(
        deps.pdf,
        finalizeInput(
          doc,
          sourcePath,
          completedAt,
          signers,
          fields,
          attachments,
          await documentTimeline(deps.db, doc.id),
          `${deps.config.publicUrl}/verify`,
          await orgMailOf(deps.db, doc.org_id),
        ),
        { ...deps.certificate.config, longTerm: deps.config.longTerm },
        outputPath,
        deps.config.finalizeTimeoutMs,
      );
    } catch (err) {
      // The same file would break the same bound again: no retry, and no other document waits on it.
      if (err instanceof WorkerLimitError || err instanceof PdfLimitError)
        throw new PermanentJobError(`Sealing refused: ${err.message}`);
      throw err;
    } finally {
      stopTimer();
    }
    const { sha256, size, level, timestampExpiresAt } = sealed;
    const key = `documents/${doc.id}/signed-${sha256}.pdf`;
    await deps.storage.put(key, fs.createReadStream(outputPath), 'application/pdf');

    const recorded = await deps.db.transaction().execute(async (trx) => {
      const locked = await lockDocument(trx, doc.id);
      if (!locked || !isOpenDocument(locked.status)) return false;
      if (openSigners(await listSigners(trx, doc.id)).length > 0) return false;
      const now = deps.clock.now().toISOString();
      const moved = await moveDocument(trx, doc.id, OPEN_DOCUMENT_STATUSES, 'completed', {
        completed_at: completedAt,
        signed_file_key: key,
        signed_file_hash: sha256,
        sealing_error: null,
        pades_level: level,
        timestamp_expires_at: timestampExpiresAt,
        updated_at: now,
      });
      if (!moved) return false;
      const completed: DocumentRow = {
        ...locked,
        status: 'completed',
        completed_at: completedAt,
        signed_file_key: key,
        signed_file_hash: sha256,
      };
      await writeAudit(trx, deps.clock, {
        orgId: doc.org_id,
        documentId: doc.id,
        action: 'document.completed',
        details: `Completed; signed PDF SHA-256 ${sha256} (${size} bytes, PAdES ${level})`,
        meta: UNKNOWN_ACTOR,
      });
      await emitEvent(
        trx,
        deps.clock,
        doc.org_id,
        'document.completed',
        await documentEventData(trx, doc.org_id, doc.id),
      );
      await mailSignedCopies(trx, deps, completed, key, size);
      return true;
    });
    if (!recorded) {
      // Read even a deleted document: another run may have recorded this very key (the same
      // signed bytes) before the document was deleted, and its file must stay.
      const current = await deps.db
        .selectFrom('documents')
        .select('signed_file_key')
        .where('id', '=', doc.id)
        .executeTakeFirst();
      if (current?.signed_file_key !== key) await deps.storage.delete(key);
    }
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
