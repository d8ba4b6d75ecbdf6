import type { DocumentRow, SignerRow } from '../db/database.ts';
import type { MailMessage } from './mailer.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function compose(to: string, subject: string, paragraphs: string[]): MailMessage {
  const body = paragraphs.filter(Boolean);
  return {
    to,
    subject,
    text: body.join('\n\n') + '\n',
    html: body.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n'),
  };
}

/** The invitation sent by `send`. */
export function invitationMail(args: { doc: DocumentRow; signer: SignerRow; orgName: string; yourTurn: boolean; link?: string }): MailMessage {
  const { doc, signer, orgName } = args;
  const subject = doc.email_subject ?? `${orgName} sent you "${doc.name}" to ${signer.role === 'cc' ? 'review' : 'sign'}`;
  const note = doc.email_message ?? doc.message;
  const action =
    signer.role === 'cc'
      ? 'You are receiving a copy; you will get the signed document when everyone has signed.'
      : args.yourTurn
        ? args.link
          ? `It is your turn to ${signer.role === 'approver' ? 'approve' : 'sign'}. Open this link to do so: ${args.link}`
          : `It is your turn to ${signer.role === 'approver' ? 'approve' : 'sign'}.`
        : args.link
          ? `Other signers come before you; we will email you again when it is your turn. You can already read the document here: ${args.link}`
          : 'Other signers come before you; we will email you again when it is your turn.';
  return compose(signer.email, subject, [
    `Hello ${signer.name},`,
    `${orgName} has sent you the document "${doc.name}".`,
    note ? `Message from ${orgName}:\n${note}` : '',
    action,
  ]);
}

/** Sent to every recipient who had not completed when the sender cancels. */
export function cancellationMail(args: { doc: DocumentRow; signer: SignerRow; orgName: string }): MailMessage {
  const { doc, signer, orgName } = args;
  return compose(signer.email, `"${doc.name}" was cancelled`, [
    `Hello ${signer.name},`,
    `${orgName} has cancelled the document "${doc.name}". No action is needed from you; any signing link you received no longer works.`,
  ]);
}

const verb = (signer: SignerRow) => (signer.role === 'approver' ? 'approve' : 'sign');

/** Sequential signing: the previous signer finished, now this one may sign. */
export function yourTurnMail(args: { doc: DocumentRow; signer: SignerRow; orgName: string; link: string }): MailMessage {
  const { doc, signer, orgName, link } = args;
  return compose(signer.email, `Your turn to ${verb(signer)} "${doc.name}"`, [
    `Hello ${signer.name},`,
    `Everyone before you has finished with "${doc.name}" from ${orgName}. It is now your turn to ${verb(signer)}.`,
    `Open this link to ${verb(signer)}: ${link}`,
  ]);
}

/** `reminderFrequency`: the signer whose turn it is has not acted yet. */
export function reminderMail(args: { doc: DocumentRow; signer: SignerRow; orgName: string; link: string }): MailMessage {
  const { doc, signer, orgName, link } = args;
  const deadline = doc.expires_at ? ` It expires on ${doc.expires_at.slice(0, 10)}.` : '';
  return compose(signer.email, `Reminder: "${doc.name}" is waiting for you`, [
    `Hello ${signer.name},`,
    `${orgName} is still waiting for you to ${verb(signer)} "${doc.name}".${deadline}`,
    `Open this link to ${verb(signer)}: ${link}`,
  ]);
}

/** The one-time code of a document whose `otpMethod` is `email`. */
export function otpMail(args: { doc: DocumentRow; signer: SignerRow; code: string; minutes: number }): MailMessage {
  const { doc, signer, code, minutes } = args;
  return compose(signer.email, `Your signing code: ${code}`, [
    `Hello ${signer.name},`,
    `Your code to sign "${doc.name}" is ${code}. It is valid for ${minutes} minutes.`,
    'If you did not ask for it, ignore this email; nobody can sign without the code.',
  ]);
}

/** The signed copy, to every signer, approver and cc recipient. */
export function completedMail(args: { doc: DocumentRow; recipient: SignerRow; orgName: string; downloadLink?: string }): MailMessage {
  const { doc, recipient, orgName, downloadLink } = args;
  return compose(recipient.email, `"${doc.name}" is signed by everyone`, [
    `Hello ${recipient.name},`,
    `Everyone has signed "${doc.name}" from ${orgName}.`,
    downloadLink
      ? `The signed PDF is too large to attach; download it here (the link works for 30 days): ${downloadLink}`
      : 'The signed PDF is attached. Keep it for your records.',
  ]);
}

/** A signer declined: the other recipients learn that the document will not be completed. */
export function declinedMail(args: { doc: DocumentRow; recipient: SignerRow; decliner: SignerRow; orgName: string }): MailMessage {
  const { doc, recipient, decliner, orgName } = args;
  return compose(recipient.email, `"${doc.name}" was declined`, [
    `Hello ${recipient.name},`,
    `${decliner.name} declined to sign "${doc.name}" from ${orgName}, so it will not be completed. No action is needed from you; your signing link no longer works.`,
  ]);
}

/** A signer declined: the sender (organization admin) learns who and why. */
export function declinedSenderMail(args: { doc: DocumentRow; to: string; decliner: SignerRow; reason: string }): MailMessage {
  const { doc, to, decliner, reason } = args;
  return compose(to, `${decliner.name} declined "${doc.name}"`, [
    `${decliner.name} <${decliner.email}> declined to sign "${doc.name}" (${doc.id}).`,
    `Reason given:\n${reason}`,
  ]);
}

/** `expiresAt` passed before everyone signed. */
export function expiredMail(args: { doc: DocumentRow; recipient: SignerRow; orgName: string }): MailMessage {
  const { doc, recipient, orgName } = args;
  return compose(recipient.email, `"${doc.name}" has expired`, [
    `Hello ${recipient.name},`,
    `The document "${doc.name}" from ${orgName} expired before everyone signed. No action is needed from you; your signing link no longer works.`,
  ]);
}

/** The sender must act: an invitation bounced, or identity evidence awaits review. */
export function actionRequiredMail(args: { doc: DocumentRow; to: string; reason: string }): MailMessage {
  const { doc, to, reason } = args;
  return compose(to, `Action required on "${doc.name}"`, [
    `The document "${doc.name}" (${doc.id}) needs your attention: ${reason}`,
    'Signing resumes once you have resolved it.',
  ]);
}

/** The sender reviewed the signer's identity evidence. */
export function verificationResultMail(args: { doc: DocumentRow; signer: SignerRow; approved: boolean; note?: string; link: string }): MailMessage {
  const { doc, signer, approved, note, link } = args;
  return approved
    ? compose(signer.email, `Identity confirmed for "${doc.name}"`, [
        `Hello ${signer.name},`,
        `Your identity was confirmed. You can now ${verb(signer)} "${doc.name}": ${link}`,
      ])
    : compose(signer.email, `Please upload your ID again for "${doc.name}"`, [
        `Hello ${signer.name},`,
        'The photo of your ID could not be accepted.',
        note ? `Reason: ${note}` : '',
        `Upload a new photo here: ${link}`,
      ]);
}
