import { redirectOf } from '../documents-core/signers.rules.ts';
import { fieldView } from '../documents-core/field-view.ts';
import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { FieldRow, SignerRow } from '../../db/database.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { emitEvent } from '../events/emit.ts';
import { moveSigner, UNFINISHED_SIGNER_STATUSES } from '../documents-core/signer-status.ts';
import { listFields, updateField } from '../documents-core/fields.repository.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import * as repo from './signing.repository.ts';
import { advanceTurn, signerEventData } from './signing-flow.ts';
import { orgBrandOf } from '../orgs/organization.service.ts';
import { invalidLink, resolveToken } from './signing-links.ts';
import { consentOf, consentRequired, recordConsent, requireConsent } from './consent.ts';
import { verifyOtp } from './signing-otp.ts';
import { mayReassign } from './reassign-signing.ts';
import {
  groupOf,
  isTurnOf,
  openSigners,
  requireOpen,
  requireTurn,
  requireVerified,
  verificationOf,
} from '../documents-core/signing-rules.ts';
import { normalizeDrawnValues, resolveValues } from './signing-values.ts';
import { uploadsOf } from './signer-uploads.ts';
import type { CompleteInput, CompleteResultT, SigningSessionT } from './signing.schemas.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { maskPhone, otpMethodOf } from '../documents-core/signer-phone.ts';

const fieldsOf = (fields: FieldRow[], signer: SignerRow) =>
  fields.filter((f) => f.assigned_to === signer.position);

/**
 * What the signing page shows. The first visit marks the signer as having viewed the document
 * (audit `document.viewed`, events `signer.viewed` and `document.viewed`); a signer whose turn it
 * is moves from `sent` to `viewed`.
 */
export async function getSession(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  token: string,
  meta: RequestMeta,
): Promise<SigningSessionT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  const now = deps.clock.now().toISOString();
  const current = await deps.db.transaction().execute(async (trx) => {
    let row = signer;
    if (!row.viewed_at) {
      const first = await trx
        .updateTable('signers')
        .set({ viewed_at: now, updated_at: now })
        .where('id', '=', row.id)
        .where('viewed_at', 'is', null)
        .executeTakeFirst();
      if (Number(first.numUpdatedRows) === 1) {
        row = { ...row, viewed_at: now };
        if (row.status === 'sent') {
          await moveSigner(trx, row.id, ['sent'], 'viewed', {});
          row = { ...row, status: 'viewed' };
        }
        await writeAudit(trx, deps.clock, {
          orgId: doc.org_id,
          documentId: doc.id,
          action: 'document.viewed',
          details: `Viewed by ${row.name} <${row.email}>`,
          meta,
        });
        const data = await signerEventData(trx, doc, row);
        await emitEvent(trx, deps.clock, doc.org_id, 'signer.viewed', data);
        await emitEvent(trx, deps.clock, doc.org_id, 'document.viewed', data);
        return row;
      }
    }
    // Opened before their turn, the signer stayed `pending`; the first visit in their turn counts as the view.
    if (
      row.status === 'sent' &&
      (await moveSigner(trx, row.id, ['sent'], 'viewed', { updated_at: now }))
    ) {
      row = { ...row, status: 'viewed' };
    }
    return row;
  });

  const [signers, fields, brand, consent] = await Promise.all([
    listSigners(deps.db, doc.id),
    listFields(deps.db, doc.id),
    orgBrandOf(deps.db, deps.config.publicUrl, doc.org_id),
    consentOf(deps.db, doc, current),
  ]);
  const verification = verificationOf(doc, current);
  const isYourTurn = isTurnOf(
    doc,
    signers.map((s) => (s.id === current.id ? current : s)),
    current,
  );
  return {
    document: {
      id: doc.id,
      name: doc.name,
      message: doc.message,
      status: doc.status as SigningSessionT['document']['status'],
      signingType: doc.signing_type as SigningSessionT['document']['signingType'],
      pageCount: doc.page_count ?? 0,
      expiresAt: doc.expires_at,
      senderName: brand.name,
      brandColor: brand.brandColor,
      logoUrl: brand.logoUrl,
    },
    signer: {
      id: current.id,
      name: current.name,
      email: current.email,
      role: current.role as SigningSessionT['signer']['role'],
      status: current.status as SigningSessionT['signer']['status'],
      order: current.position,
      group: groupOf(current),
    },
    isYourTurn,
    consent: {
      required: consent.required,
      given: consent.given,
      text: consent.text,
      locale: consent.locale,
    },
    canReassign: isYourTurn && mayReassign(doc, current),
    otpRequired: otpMethodOf(doc, current) !== null,
    otpMethod: otpMethodOf(doc, current),
    otpPhone:
      otpMethodOf(doc, current) === 'sms' && current.phone ? maskPhone(current.phone) : null,
    verification: { required: verification !== 'none', status: verification },
    fields: fieldsOf(fields, current).map(fieldView),
    recipients: signers.map((s) => ({
      name: s.name,
      role: s.role as SigningSessionT['signer']['role'],
      status: s.status as SigningSessionT['signer']['status'],
      order: s.position,
      group: groupOf(s),
    })),
  };
}

/**
 * The PDF behind a link: the document to sign for a signing link of an open document, the signed
 * PDF for a download link (sent instead of an attachment when the signed file is large).
 */
export async function openFile(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock'>,
  token: string,
): Promise<{ stream: Readable; name: string; size: number | null }> {
  const { signer, doc, purpose } = await resolveToken(deps.db, deps, token, ['sign', 'download']);
  let key: string | null;
  if (purpose === 'download') {
    if (doc.status !== 'completed' || !doc.signed_file_key) throw invalidLink();
    key = doc.signed_file_key;
  } else {
    requireOpen(doc, signer);
    // The disclosure comes before the document (ESIGN): no file until the signer consented.
    await requireConsent(deps.db, doc, signer);
    key = doc.file_key;
  }
  if (!key) throw notFound('File');
  const stat = await deps.storage.stat(key);
  if (!stat) throw notFound('File');
  return {
    stream: await deps.storage.get(key),
    name: purpose === 'download' ? `${doc.name} - Signed.pdf` : `${doc.name}.pdf`,
    size: stat.size,
  };
}

/**
 * Completes the signer's part: validates turn, identity review, values and code, stores the values
 * and the signature on the signer's fields, and marks the signer `completed` with where they signed
 * from. Sequential: the next signer is emailed. The last signature queues the signed PDF (the
 * document becomes `completed` once that file exists, see src/jobs/finalize.ts).
 */
export async function completeSigning(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'secret'>,
  token: string,
  input: CompleteInput,
  meta: RequestMeta,
): Promise<CompleteResultT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  requireTurn(doc, await listSigners(deps.db, doc.id), signer);
  requireVerified(doc, signer);
  // Drawn signatures are decoded once, here, within their pixel budget: sealing then meets only images Signet wrote.
  const values = await normalizeDrawnValues(
    resolveValues(
      fieldsOf(await listFields(deps.db, doc.id), signer),
      input,
      await uploadsOf(deps.db, doc.id, signer.id),
    ),
  );
  const consent = await consentOf(deps.db, doc, signer);
  const consentNeeded = consent.required && !consent.given;
  if (consentNeeded && input.consent !== true) throw consentRequired();
  // The code is checked last: a mistake in the values must not cost one of its attempts.
  if (otpMethodOf(doc, signer) !== null) await verifyOtp(deps, doc, signer, input.otp, meta);

  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockDocument(trx, doc.id);
    const current = await repo.findSignerById(trx, signer.id);
    if (!locked || !current) throw invalidLink();
    requireOpen(locked, current);
    requireTurn(locked, await listSigners(trx, doc.id), current);
    requireVerified(locked, current);
    // An upload named in the values must still be the field's (a second upload replaces the first).
    const uploads = await uploadsOf(trx, doc.id, signer.id);
    for (const [fieldId, value] of values) {
      if (value !== null && uploads.has(fieldId) && uploads.get(fieldId)!.id !== value) {
        throw new AppError(
          'validation_error',
          `body.values.${fieldId} names a file replaced meanwhile`,
          [
            {
              path: `body.values.${fieldId}`,
              message: 'names a file replaced meanwhile; use the latest attachmentId',
            },
          ],
        );
      }
    }

    if (consentNeeded) await recordConsent(trx, deps, locked, current, consent, meta);
    const now = deps.clock.now().toISOString();
    for (const [fieldId, value] of values)
      await updateField(trx, fieldId, { value, updated_at: now });
    const changes = {
      signed_at: now,
      ip_address: meta.ipAddress,
      user_agent: meta.userAgent,
      geo_city: meta.geoCity,
      geo_country: meta.geoCountry,
      updated_at: now,
    };
    if (!(await moveSigner(trx, current.id, UNFINISHED_SIGNER_STATUSES, 'completed', changes)))
      throw invalidState('You have already signed this document');
    await repo.deleteOtp(trx, current.id);
    const completed: SignerRow = { ...current, ...changes, status: 'completed' };
    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'signer.completed',
      details: `${current.role === 'approver' ? 'Approved' : 'Signed'} by ${current.name} <${current.email}>`,
      meta,
    });
    await emitEvent(
      trx,
      deps.clock,
      locked.org_id,
      'signer.completed',
      await signerEventData(trx, locked, completed),
    );

    const allSigned = openSigners(await listSigners(trx, locked.id)).length === 0;
    if (allSigned) await enqueueJob(trx, deps.clock, 'finalize', { documentId: locked.id });
    else await advanceTurn(trx, deps, locked, meta);
    return {
      documentId: locked.id,
      signerId: current.id,
      status: 'completed',
      signedAt: now,
      documentStatus: locked.status as CompleteResultT['documentStatus'],
      allSigned,
      redirectUrl: redirectOf(locked, current),
    };
  });
}
