import type { DocumentRow, SignerRow } from '../db/database.ts';
import {
  buttonKey,
  composeMail,
  isApprover,
  type OrgMailSettings,
  type OutgoingMail,
  recipientTranslator,
  subjectName,
} from './templates.ts';

/**
 * The invitation of someone a signer handed over to (README "Reassign"). The subject carries only
 * the organization's words (see subjectName); the body names who handed over, and asks the
 * recipient to check with the organization when the hand-over was unexpected. The reason given
 * is not quoted: it is a signer's free text, and the mail goes out in the organization's name.
 */
export function handedOverMail(
  args: OrgMailSettings & {
    doc: DocumentRow;
    signer: SignerRow;
    previousName: string;
    link: string;
  },
): OutgoingMail {
  const { doc, signer, orgName, previousName, link } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale, args.timeZone);
  const approve = isApprover(signer);
  const note = doc.email_message ?? doc.message;
  return composeMail(
    doc.org_id,
    signer.email,
    t(approve ? 'mail.handedOverSubjectApprove' : 'mail.handedOverSubjectSign', {
      documentName: subjectName(doc),
      orgName,
    }),
    {
      locale,
      greeting: t('mail.greeting', { name: signer.name }),
      paragraphs: [
        t('mail.handedOverBody', { previousName, documentName: doc.name, orgName }),
        t(approve ? 'mail.yourTurnApprove' : 'mail.yourTurnSign'),
      ],
      quote: note ? { label: t('mail.messageFrom', { orgName }), text: note } : undefined,
      button: { label: t(buttonKey(signer)), url: link },
      after: [t('mail.handedOverCheck', { orgName })],
    },
  );
}
