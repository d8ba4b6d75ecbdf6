import type { DocumentRow, SignerRow } from '../db/database.ts';
import { composeMail, type OutgoingMail, subjectName } from './templates.ts';

/*
 * Mails to the organization's admin (the sender). They stay in English, like the API's messages:
 * they go to the integrator's staff, not to signers.
 */

/** A signer declined: the sender (organization admin) learns who and why. */
export function declinedSenderMail(args: {
  doc: DocumentRow;
  to: string;
  decliner: SignerRow;
  reason: string;
}): OutgoingMail {
  const { doc, to, decliner, reason } = args;
  return composeMail(doc.org_id, to, `A signer declined "${subjectName(doc)}"`, {
    paragraphs: [
      `${decliner.name} <${decliner.email}> declined to sign "${doc.name}" (${doc.id}).`,
    ],
    quote: { label: 'Reason given:', text: reason },
  });
}

/** The sender must act: an invitation bounced, identity evidence awaits review, sealing failed. */
export function actionRequiredMail(args: {
  doc: DocumentRow;
  to: string;
  reason: string;
}): OutgoingMail {
  const { doc, to, reason } = args;
  return composeMail(doc.org_id, to, `Action required on "${subjectName(doc)}"`, {
    paragraphs: [
      `The document "${doc.name}" (${doc.id}) needs your attention: ${reason}`,
      'Signing resumes once you have resolved it.',
    ],
  });
}
