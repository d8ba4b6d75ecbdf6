import type { DocumentRow, DocumentStatus, SignerRow } from '../../db/database.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import { isOpenDocument } from './document-status.ts';
import { isFinishedSigner } from './signer-status.ts';
import { SIGNING_ROLES } from './signers.schemas.ts';

export const isSigningRole = (s: Pick<SignerRow, 'role'>) => SIGNING_ROLES.includes(s.role);

/** A signer's (or template role's) turn in a sequential document: its `group`, else its `order`. */
export const groupOf = (s: Pick<SignerRow, 'position' | 'signing_group'>): number =>
  s.signing_group ?? s.position;

/** Signers and approvers who still have to act, in turn: lowest group first, then lowest order. */
export function openSigners(signers: SignerRow[]): SignerRow[] {
  return signers
    .filter((s) => isSigningRole(s) && !isFinishedSigner(s.status))
    .sort((a, b) => groupOf(a) - groupOf(b) || a.position - b.position);
}

/**
 * The signers and approvers whose turn it is: in parallel mode every open one; in sequential mode
 * the open ones of the lowest group (every member of a group must finish before the next starts).
 */
export function currentTurn(
  doc: Pick<DocumentRow, 'signing_type'>,
  signers: SignerRow[],
): SignerRow[] {
  const open = openSigners(signers);
  if (doc.signing_type === 'parallel' || open.length === 0) return open;
  const group = groupOf(open[0]);
  return open.filter((s) => groupOf(s) === group);
}

/**
 * Whether `signer` may act now: in parallel mode every open signer or approver; in sequential
 * mode only the open ones of the lowest group.
 */
export function isTurnOf(
  doc: Pick<DocumentRow, 'signing_type'>,
  signers: SignerRow[],
  signer: SignerRow,
): boolean {
  if (!isSigningRole(signer) || isFinishedSigner(signer.status)) return false;
  if (doc.signing_type === 'parallel') return true;
  const turn = currentTurn(doc, signers);
  return turn.length > 0 && groupOf(turn[0]) === groupOf(signer);
}

const DOCUMENT_CLOSED: Partial<Record<DocumentStatus, string>> = {
  draft: 'This document has not been sent yet',
  completed: 'This document is already completed',
  cancelled: 'The sender cancelled this document',
  expired: 'This document has expired',
  declined: 'This document was declined',
};

/** Refuses a document that is not out for signature, saying why. */
export function requireOpenDocument(doc: DocumentRow): void {
  if (!isOpenDocument(doc.status)) {
    throw invalidState(DOCUMENT_CLOSED[doc.status] ?? `This document is ${doc.status}`);
  }
}

/** Refuses any signing action unless the document is out for signature and the signer still has to act. */
export function requireOpen(doc: DocumentRow, signer: SignerRow): void {
  requireOpenDocument(doc);
  if (!isSigningRole(signer)) throw invalidState('Copy (cc) recipients do not sign');
  if (signer.status === 'completed') throw invalidState('You have already signed this document');
  if (signer.status === 'declined') throw invalidState('You declined this document');
  if (signer.status === 'cancelled') throw invalidState('Your signing request was withdrawn');
}

export function requireTurn(doc: DocumentRow, signers: SignerRow[], signer: SignerRow): void {
  if (!isTurnOf(doc, signers, signer)) {
    const turn = currentTurn(doc, signers).map((s) => s.name);
    const who =
      turn.length === 0
        ? 'an earlier signer signs'
        : `${turn.join(', ')} ${turn.length > 1 ? 'sign' : 'signs'}`;
    throw new AppError('not_your_turn', `It is not your turn yet: ${who} first`);
  }
}

/** Where the signer stands in identity review; `none` when the document does not require KYC. */
export function verificationOf(
  doc: DocumentRow,
  signer: SignerRow,
): 'none' | 'required' | 'pending' | 'approved' | 'rejected' {
  if (doc.require_kyc !== 1 || !isSigningRole(signer)) return 'none';
  return (
    (signer.verification_status as 'pending' | 'approved' | 'rejected' | null | undefined) ??
    'required'
  );
}

export function requireVerified(doc: DocumentRow, signer: SignerRow): void {
  const status = verificationOf(doc, signer);
  if (status === 'none' || status === 'approved') return;
  const why = {
    required: 'Upload a photo of your ID first (POST …/identity)',
    pending: 'Your identity evidence awaits the sender’s review',
    rejected: 'Your identity evidence was rejected; upload a new photo of your ID',
  }[status];
  throw new AppError('verification_required', why);
}

type ActionRequiredReason =
  | 'identity_review'
  | 'invitation_undeliverable'
  | 'sms_undeliverable'
  | 'sealing_failed';
interface ActionRequired {
  reason: ActionRequiredReason;
  signerId?: string;
  message: string;
}
type ActionSigner = Pick<
  SignerRow,
  | 'id'
  | 'name'
  | 'email'
  | 'role'
  | 'status'
  | 'delivery_failed_at'
  | 'delivery_error'
  | 'verification_status'
  | 'phone'
  | 'sms_failed_at'
  | 'sms_error'
>;

/**
 * What the sender must do before the document can move on, or null: sealing failed for good, a
 * signer's invitation could not be delivered, or a signer's identity evidence awaits review.
 * The first cause found is named (sealing first: every signer has finished by then).
 */
export function actionRequiredOf(
  doc: Pick<DocumentRow, 'id' | 'require_kyc' | 'sealing_error'>,
  signers: readonly ActionSigner[],
): ActionRequired | null {
  if (doc.sealing_error !== null && doc.sealing_error !== undefined) {
    return {
      reason: 'sealing_failed',
      message: `Every signer has signed, but the signed PDF could not be produced: ${doc.sealing_error}. Fix the cause, then POST /api/v1/documents/${doc.id}/reseal`,
    };
  }
  for (const s of signers) {
    if (!isSigningRole(s) || isFinishedSigner(s.status)) continue;
    if (s.delivery_failed_at) {
      const why = s.delivery_error ? ` (${s.delivery_error})` : '';
      return {
        reason: 'invitation_undeliverable',
        signerId: s.id,
        message: `The invitation to ${s.email} could not be delivered${why}; correct the signer's email address`,
      };
    }
    if (s.sms_failed_at) {
      const why = s.sms_error ? ` (${s.sms_error})` : '';
      return {
        reason: 'sms_undeliverable',
        signerId: s.id,
        message: `A signing code could not be texted to ${s.name}'s phone ${s.phone ?? ''}${why}; correct the signer's phone`,
      };
    }
    if (doc.require_kyc === 1 && s.verification_status === 'pending') {
      return {
        reason: 'identity_review',
        signerId: s.id,
        message: `The identity evidence of ${s.name} awaits review (POST …/signers/${s.id}/verification)`,
      };
    }
  }
  return null;
}

/** `j***@example.com`: enough for the signer to recognise the address, not enough to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
