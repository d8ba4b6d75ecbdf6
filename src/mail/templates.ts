import type { DocumentRow, SignerRow } from '../db/database.ts';
import { renderMailText, type MailContent } from './layout.ts';
import type { MailMessage } from './mailer.ts';

/**
 * Every mail Signet sends, as what it says (MailContent) for an organization (`orgId`). The mail
 * job renders it when it sends it (jobs/handlers.ts): HTML in the organization's colours with its
 * logo, the plain-text part, and the organization's Reply-To. `text` is the plain-text part
 * without the organization's footer, kept for anything that reads the payload before sending.
 */
export interface OutgoingMail extends MailMessage {
  orgId: string;
  content: MailContent;
}

/** Builds a mail; mails of any module go through here, so they all look alike. */
export function composeMail(
  orgId: string,
  to: string,
  subject: string,
  content: MailContent,
): OutgoingMail {
  const clean = {
    ...content,
    paragraphs: content.paragraphs.filter(Boolean),
    after: content.after?.filter(Boolean),
  };
  return { to, subject, orgId, content: clean, text: renderMailText(clean, 'your sender') };
}

/** Between a form's name and the visitor's in the name of a document submitted through a public form. */
export const SUBMITTER_SEPARATOR = ': ';

/**
 * A document's name as a mail subject may carry it. Nothing a visitor or signer typed goes into
 * a subject (the subject is what makes a mail look like the organization's own: "URGENT: your
 * account is locked…" must not arrive as one). A document submitted through a public form is
 * named `<form name>: <visitor's name>` (campaigns/submission.ts); its subjects carry only what
 * comes before the first separator, which is always the organization's text: the form's name, or
 * the start of it when the form's name itself holds the separator. Other documents are named by
 * the organization (its API calls, templates, bulk sends).
 */
export function subjectName(doc: Pick<DocumentRow, 'name' | 'campaign_id'>): string {
  if (doc.campaign_id === null) return doc.name;
  const cut = doc.name.indexOf(SUBMITTER_SEPARATOR);
  return cut < 0 ? doc.name : doc.name.slice(0, cut);
}

const verb = (signer: SignerRow) => (signer.role === 'approver' ? 'approve' : 'sign');
const Verb = (signer: SignerRow) => (signer.role === 'approver' ? 'Approve' : 'Sign');

/** The invitation sent by `send`. */
export function invitationMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  orgName: string;
  yourTurn: boolean;
  link?: string;
}): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  const subject =
    doc.email_subject ??
    `${orgName} sent you "${subjectName(doc)}" to ${signer.role === 'cc' ? 'review' : 'sign'}`;
  const note = doc.email_message ?? doc.message;
  const content: MailContent = {
    greeting: `Hello ${signer.name},`,
    paragraphs: [`${orgName} has sent you the document "${doc.name}".`],
    quote: note ? { label: `Message from ${orgName}:`, text: note } : undefined,
  };
  if (signer.role === 'cc') {
    content.after = [
      'You are receiving a copy; you will get the signed document when everyone has signed.',
    ];
  } else if (args.yourTurn) {
    content.paragraphs.push(`It is your turn to ${verb(signer)}.`);
    if (link) content.button = { label: `${Verb(signer)} the document`, url: link };
  } else {
    content.paragraphs.push(
      'Other signers come before you; we will email you again when it is your turn.',
    );
    if (link) content.button = { label: 'Read the document', url: link };
  }
  return composeMail(doc.org_id, signer.email, subject, content);
}

/** Sent to every recipient who had not completed when the sender cancels. */
export function cancellationMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  orgName: string;
}): OutgoingMail {
  const { doc, signer, orgName } = args;
  return composeMail(doc.org_id, signer.email, `"${subjectName(doc)}" was cancelled`, {
    greeting: `Hello ${signer.name},`,
    paragraphs: [
      `${orgName} has cancelled the document "${doc.name}".`,
      'No action is needed from you; any signing link you received no longer works.',
    ],
  });
}

/** Sequential signing: the previous signer finished, now this one may sign. */
export function yourTurnMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  orgName: string;
  link: string;
}): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  return composeMail(
    doc.org_id,
    signer.email,
    `Your turn to ${verb(signer)} "${subjectName(doc)}"`,
    {
      greeting: `Hello ${signer.name},`,
      paragraphs: [
        `Everyone before you has finished with "${doc.name}" from ${orgName}. It is now your turn to ${verb(signer)}.`,
      ],
      button: { label: `${Verb(signer)} the document`, url: link },
    },
  );
}

/** `reminderFrequency`: the signer whose turn it is has not acted yet. */
export function reminderMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  orgName: string;
  link: string;
}): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  const deadline = doc.expires_at ? ` It expires on ${doc.expires_at.slice(0, 10)}.` : '';
  return composeMail(
    doc.org_id,
    signer.email,
    `Reminder: "${subjectName(doc)}" is waiting for you`,
    {
      greeting: `Hello ${signer.name},`,
      paragraphs: [
        `${orgName} is still waiting for you to ${verb(signer)} "${doc.name}".${deadline}`,
      ],
      button: { label: `${Verb(signer)} the document`, url: link },
    },
  );
}

/** The one-time code of a document whose `otpMethod` is `email`. */
export function otpMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  code: string;
  minutes: number;
}): OutgoingMail {
  const { doc, signer, code, minutes } = args;
  // The code is in the body only: subjects end up in mail servers' logs and lock-screen previews.
  return composeMail(doc.org_id, signer.email, `Your signing code for "${subjectName(doc)}"`, {
    greeting: `Hello ${signer.name},`,
    paragraphs: [`Your code to sign "${doc.name}" is ${code}. It is valid for ${minutes} minutes.`],
    code,
    after: ['If you did not ask for it, ignore this email; nobody can sign without the code.'],
  });
}

/**
 * The signed copy, to every signer, approver and cc recipient: attached, or behind `downloadLink`
 * when it is too large to mail or the address was never proven (a visitor's, with no code).
 */
export function completedMail(args: {
  doc: DocumentRow;
  recipient: SignerRow;
  orgName: string;
  downloadLink?: string;
  linkBecause?: 'too_large' | 'unproven_address';
}): OutgoingMail {
  const { doc, recipient, orgName, downloadLink } = args;
  const linkText =
    args.linkBecause === 'unproven_address'
      ? 'Download the signed PDF here (the link works for 30 days).'
      : 'The signed PDF is too large to attach; download it here (the link works for 30 days).';
  return composeMail(doc.org_id, recipient.email, `"${subjectName(doc)}" is signed by everyone`, {
    greeting: `Hello ${recipient.name},`,
    paragraphs: [
      `Everyone has signed "${doc.name}" from ${orgName}.`,
      downloadLink ? linkText : 'The signed PDF is attached. Keep it for your records.',
    ],
    button: downloadLink ? { label: 'Download the signed PDF', url: downloadLink } : undefined,
  });
}

/** A signer declined: the other recipients learn that the document will not be completed. */
export function declinedMail(args: {
  doc: DocumentRow;
  recipient: SignerRow;
  decliner: SignerRow;
  orgName: string;
}): OutgoingMail {
  const { doc, recipient, decliner, orgName } = args;
  return composeMail(doc.org_id, recipient.email, `"${subjectName(doc)}" was declined`, {
    greeting: `Hello ${recipient.name},`,
    paragraphs: [
      `${decliner.name} declined to sign "${doc.name}" from ${orgName}, so it will not be completed.`,
      'No action is needed from you; your signing link no longer works.',
    ],
  });
}

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

/** `expiresAt` passed before everyone signed. */
export function expiredMail(args: {
  doc: DocumentRow;
  recipient: SignerRow;
  orgName: string;
}): OutgoingMail {
  const { doc, recipient, orgName } = args;
  return composeMail(doc.org_id, recipient.email, `"${subjectName(doc)}" has expired`, {
    greeting: `Hello ${recipient.name},`,
    paragraphs: [
      `The document "${doc.name}" from ${orgName} expired before everyone signed.`,
      'No action is needed from you; your signing link no longer works.',
    ],
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

/** The sender reviewed the signer's identity evidence. */
export function verificationResultMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  approved: boolean;
  note?: string;
  link: string;
}): OutgoingMail {
  const { doc, signer, approved, note, link } = args;
  return approved
    ? composeMail(doc.org_id, signer.email, `Identity confirmed for "${subjectName(doc)}"`, {
        greeting: `Hello ${signer.name},`,
        paragraphs: [`Your identity was confirmed. You can now ${verb(signer)} "${doc.name}".`],
        button: { label: `${Verb(signer)} the document`, url: link },
      })
    : composeMail(
        doc.org_id,
        signer.email,
        `Please upload your ID again for "${subjectName(doc)}"`,
        {
          greeting: `Hello ${signer.name},`,
          paragraphs: [
            'The photo of your ID could not be accepted.',
            note ? `Reason: ${note}` : '',
          ],
          button: { label: 'Upload a new photo', url: link },
        },
      );
}
