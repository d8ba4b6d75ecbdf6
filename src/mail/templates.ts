import type { DocumentRow, SignerRow } from '../db/database.ts';
import { resolveLocale } from '../i18n/locales.ts';
import { translator, type Translator } from '../i18n/messages.ts';
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
  const sender = translator(content.locale ?? 'en').t('mail.yourSender');
  return { to, subject, orgId, content: clean, text: renderMailText(clean, sender) };
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

/**
 * The locale a recipient reads (its own, the document's, the organization's) and its messages.
 * `orgLocale` is the organization's `defaultLocale` (absent: English).
 */
export function recipientTranslator(
  signer: Pick<SignerRow, 'locale'>,
  doc: Pick<DocumentRow, 'locale'>,
  orgLocale?: string | null,
  timeZone?: string,
): Translator {
  return translator(resolveLocale(signer.locale, doc.locale, orgLocale), timeZone);
}

/** What the organization adds to every mail to its signers: its locale and time zone. */
export interface OrgMailSettings {
  orgName: string;
  orgLocale?: string | null;
  timeZone?: string;
}

export const isApprover = (signer: SignerRow) => signer.role === 'approver';
export const buttonKey = (signer: SignerRow) =>
  isApprover(signer) ? 'mail.buttonApprove' : 'mail.buttonSign';

/** The invitation sent by `send`. */
export function invitationMail(
  args: OrgMailSettings & {
    doc: DocumentRow;
    signer: SignerRow;
    yourTurn: boolean;
    link?: string;
  },
): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale, args.timeZone);
  const documentName = doc.name;
  const subject =
    doc.email_subject ??
    t(signer.role === 'cc' ? 'mail.invitationSubjectReview' : 'mail.invitationSubjectSign', {
      orgName,
      documentName: subjectName(doc),
    });
  const note = doc.email_message ?? doc.message;
  const content: MailContent = {
    locale,
    greeting: t('mail.greeting', { name: signer.name }),
    paragraphs: [t('mail.invitationBody', { orgName, documentName })],
    quote: note ? { label: t('mail.messageFrom', { orgName }), text: note } : undefined,
  };
  if (signer.role === 'cc') {
    content.after = [t('mail.ccCopy')];
  } else if (args.yourTurn) {
    content.paragraphs.push(t(isApprover(signer) ? 'mail.yourTurnApprove' : 'mail.yourTurnSign'));
    if (link) content.button = { label: t(buttonKey(signer)), url: link };
  } else {
    content.paragraphs.push(t('mail.othersFirst'));
    if (link) content.button = { label: t('mail.buttonRead'), url: link };
  }
  return composeMail(doc.org_id, signer.email, subject, content);
}

/** Sent to every recipient who had not completed when the sender cancels. */
export function cancellationMail(
  args: OrgMailSettings & { doc: DocumentRow; signer: SignerRow },
): OutgoingMail {
  const { doc, signer, orgName } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale, args.timeZone);
  return composeMail(
    doc.org_id,
    signer.email,
    t('mail.cancelledSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: signer.name }),
      paragraphs: [
        t('mail.cancelledBody', { orgName, documentName: doc.name }),
        t('mail.cancelledNoAction'),
      ],
    },
  );
}

/** Sequential signing: the previous signer finished, now this one may sign. */
export function yourTurnMail(
  args: OrgMailSettings & { doc: DocumentRow; signer: SignerRow; link: string },
): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale, args.timeZone);
  const approve = isApprover(signer);
  return composeMail(
    doc.org_id,
    signer.email,
    t(approve ? 'mail.yourTurnSubjectApprove' : 'mail.yourTurnSubjectSign', {
      documentName: subjectName(doc),
    }),
    {
      locale,
      greeting: t('mail.greeting', { name: signer.name }),
      paragraphs: [
        t(approve ? 'mail.yourTurnBodyApprove' : 'mail.yourTurnBodySign', {
          documentName: doc.name,
          orgName,
        }),
      ],
      button: { label: t(buttonKey(signer)), url: link },
    },
  );
}

/** `reminderFrequency`: the signer whose turn it is has not acted yet. */
export function reminderMail(
  args: OrgMailSettings & { doc: DocumentRow; signer: SignerRow; link: string },
): OutgoingMail {
  const { doc, signer, orgName, link } = args;
  const tr = recipientTranslator(signer, doc, args.orgLocale, args.timeZone);
  const { t, locale } = tr;
  const body = t(isApprover(signer) ? 'mail.reminderBodyApprove' : 'mail.reminderBodySign', {
    orgName,
    documentName: doc.name,
  });
  const deadline = doc.expires_at
    ? ` ${t('mail.reminderDeadline', { date: tr.date(doc.expires_at) })}`
    : '';
  return composeMail(
    doc.org_id,
    signer.email,
    t('mail.reminderSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: signer.name }),
      paragraphs: [`${body}${deadline}`],
      button: { label: t(buttonKey(signer)), url: link },
    },
  );
}

/** The one-time code of a document whose `otpMethod` is `email`. */
export function otpMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  code: string;
  minutes: number;
  orgLocale?: string | null;
}): OutgoingMail {
  const { doc, signer, code, minutes } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale);
  // The code is in the body only: subjects end up in mail servers' logs and lock-screen previews.
  return composeMail(
    doc.org_id,
    signer.email,
    t('mail.otpSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: signer.name }),
      paragraphs: [t('mail.otpBody', { documentName: doc.name, code, minutes })],
      code,
      after: [t('mail.otpIgnore')],
    },
  );
}

/**
 * The signed copy, to every signer, approver and cc recipient: attached, or behind `downloadLink`
 * when it is too large to mail or the address was never proven (a visitor's, with no code).
 */
export function completedMail(
  args: OrgMailSettings & {
    doc: DocumentRow;
    recipient: SignerRow;
    downloadLink?: string;
    linkBecause?: 'too_large' | 'unproven_address';
  },
): OutgoingMail {
  const { doc, recipient, orgName, downloadLink } = args;
  const { t, locale } = recipientTranslator(recipient, doc, args.orgLocale, args.timeZone);
  const linkText =
    args.linkBecause === 'unproven_address'
      ? t('mail.completedLinkUnproven')
      : t('mail.completedLinkTooLarge');
  return composeMail(
    doc.org_id,
    recipient.email,
    t('mail.completedSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: recipient.name }),
      paragraphs: [
        t('mail.completedBody', { documentName: doc.name, orgName }),
        downloadLink ? linkText : t('mail.completedAttached'),
      ],
      button: downloadLink ? { label: t('mail.completedButton'), url: downloadLink } : undefined,
    },
  );
}

/** A signer declined: the other recipients learn that the document will not be completed. */
export function declinedMail(
  args: OrgMailSettings & { doc: DocumentRow; recipient: SignerRow; decliner: SignerRow },
): OutgoingMail {
  const { doc, recipient, decliner, orgName } = args;
  const { t, locale } = recipientTranslator(recipient, doc, args.orgLocale, args.timeZone);
  return composeMail(
    doc.org_id,
    recipient.email,
    t('mail.declinedSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: recipient.name }),
      paragraphs: [
        t('mail.declinedBody', { declinerName: decliner.name, documentName: doc.name, orgName }),
        t('mail.linkNoLongerWorks'),
      ],
    },
  );
}

/** `expiresAt` passed before everyone signed. */
export function expiredMail(
  args: OrgMailSettings & { doc: DocumentRow; recipient: SignerRow },
): OutgoingMail {
  const { doc, recipient, orgName } = args;
  const { t, locale } = recipientTranslator(recipient, doc, args.orgLocale, args.timeZone);
  return composeMail(
    doc.org_id,
    recipient.email,
    t('mail.expiredSubject', { documentName: subjectName(doc) }),
    {
      locale,
      greeting: t('mail.greeting', { name: recipient.name }),
      paragraphs: [
        t('mail.expiredBody', { documentName: doc.name, orgName }),
        t('mail.linkNoLongerWorks'),
      ],
    },
  );
}
