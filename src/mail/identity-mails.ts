import type { DocumentRow, SignerRow } from '../db/database.ts';
import {
  buttonKey,
  composeMail,
  isApprover,
  type OutgoingMail,
  recipientTranslator,
  subjectName,
} from './templates.ts';

/** The sender reviewed the signer's identity evidence. */
export function verificationResultMail(args: {
  doc: DocumentRow;
  signer: SignerRow;
  approved: boolean;
  note?: string;
  link: string;
  orgLocale?: string | null;
}): OutgoingMail {
  const { doc, signer, approved, note, link } = args;
  const { t, locale } = recipientTranslator(signer, doc, args.orgLocale);
  const documentName = subjectName(doc);
  return approved
    ? composeMail(doc.org_id, signer.email, t('mail.identityConfirmedSubject', { documentName }), {
        locale,
        greeting: t('mail.greeting', { name: signer.name }),
        paragraphs: [
          t(isApprover(signer) ? 'mail.identityConfirmedApprove' : 'mail.identityConfirmedSign', {
            documentName: doc.name,
          }),
        ],
        button: { label: t(buttonKey(signer)), url: link },
      })
    : composeMail(doc.org_id, signer.email, t('mail.identityRejectedSubject', { documentName }), {
        locale,
        greeting: t('mail.greeting', { name: signer.name }),
        paragraphs: [
          t('mail.identityRejectedBody'),
          note ? t('mail.identityRejectedReason', { note }) : '',
        ],
        button: { label: t('mail.identityRejectedButton'), url: link },
      });
}
