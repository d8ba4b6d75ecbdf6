import type { DocumentRow, SignerRow } from '../db/database.ts';
import { resolveLocale } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';

/**
 * The text message with a signing code, in the signer's language (its own, the document's, then
 * the organization's). Short: one SMS segment where the script allows; no document name, which
 * lock screens would show to whoever holds the phone.
 */
export function smsCodeText(args: {
  doc: Pick<DocumentRow, 'locale'>;
  signer: Pick<SignerRow, 'locale'>;
  code: string;
  minutes: number;
  orgLocale?: string | null;
}): string {
  const { t } = translator(resolveLocale(args.signer.locale, args.doc.locale, args.orgLocale));
  return t('sms.code', { code: args.code, minutes: args.minutes });
}
