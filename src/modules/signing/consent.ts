import { createHash } from 'node:crypto';
import type { DocumentRow, Executor, SignerRow } from '../../db/database.ts';
import type { AppDeps } from '../../deps.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import { resolveLocale } from '../../i18n/locales.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { emitEvent } from '../events/emit.ts';
import { DEFAULT_CONSENT_TEXT, parseConsentText } from '../orgs/consent-text.ts';

import { signerEventData } from './signing-flow.ts';

/*
 * Consent to do business electronically (README "Consent"). With the organization's
 * `requireConsent`, a signer must accept its `consentText` (or Signet's default) before the
 * document is shown or signed. Each consent keeps the exact text shown, its locale and its
 * SHA-256; a consent counts only while its SHA-256 is that of the text the signer would be shown
 * now, so a changed text is asked again of signers who have not completed.
 */

interface Consent {
  required: boolean;
  given: boolean;
  text: string;
  locale: string;
  sha256: string;
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The text a signer of `locale` is shown: the organization's text in that locale, else its `en`
 * text, else its first; Signet's default when the organization has none.
 */
function consentTextFor(
  stored: string | Record<string, string> | null,
  locale: string,
): { text: string; locale: string } {
  const texts =
    stored === null
      ? DEFAULT_CONSENT_TEXT
      : typeof stored === 'string'
        ? { [locale]: stored }
        : stored;
  if (texts[locale]) return { text: texts[locale], locale };
  if (texts.en) return { text: texts.en, locale: 'en' };
  const [first] = Object.entries(texts);
  return { text: first[1], locale: first[0] };
}

/** Whether and what the signer must accept, and whether it already did (for the current text). */
export async function consentOf(
  db: Executor,
  doc: DocumentRow,
  signer: SignerRow,
): Promise<Consent> {
  const org = await db
    .selectFrom('organizations')
    .select(['require_consent', 'consent_text', 'default_locale'])
    .where('id', '=', doc.org_id)
    .executeTakeFirstOrThrow();
  // The signer reads the text in its locale (its own, else the document's, else the
  // organization's default), falling back as consentTextFor says.
  const { text, locale } = consentTextFor(
    parseConsentText(org.consent_text),
    resolveLocale(signer.locale, doc.locale, org.default_locale),
  );
  const sha256 = sha256Hex(text);
  return {
    required: Number(org.require_consent) === 1,
    given: signer.consent_sha256 === sha256,
    text,
    locale,
    sha256,
  };
}

export const consentRequired = () =>
  new AppError(
    'consent_required',
    'Accept the consent to use electronic records and signatures first (POST …/consent, or consent: true)',
  );

/** Refuses (409 `consent_required`) a signer who must consent and has not, for the current text. */
export async function requireConsent(
  db: Executor,
  doc: DocumentRow,
  signer: SignerRow,
): Promise<void> {
  const consent = await consentOf(db, doc, signer);
  if (consent.required && !consent.given) throw consentRequired();
}

/** Keeps the consent on the signer, audits `signer.consented` and emits the event, in `trx`. */
export async function recordConsent(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  doc: DocumentRow,
  signer: SignerRow,
  consent: Consent,
  meta: RequestMeta,
): Promise<{ consentedAt: string }> {
  const now = deps.clock.now().toISOString();
  const changes = {
    consent_text: consent.text,
    consent_locale: consent.locale,
    consent_sha256: consent.sha256,
    consented_at: now,
    updated_at: now,
  };
  await trx.updateTable('signers').set(changes).where('id', '=', signer.id).execute();
  await writeAudit(trx, deps.clock, {
    orgId: doc.org_id,
    documentId: doc.id,
    action: 'signer.consented',
    details: `${signer.name} <${signer.email}> consented to electronic records and signatures (text in ${consent.locale}, SHA-256 ${consent.sha256})`,
    meta,
  });
  const data = await signerEventData(trx, doc, { ...signer, ...changes });
  await emitEvent(trx, deps.clock, doc.org_id, 'signer.consented', {
    ...data,
    consent: { locale: consent.locale, sha256: consent.sha256, consentedAt: now },
  });
  return { consentedAt: now };
}

/** `POST /api/v1/signing/{token}/consent` once resolved: records the consent unless already given. */
export async function giveConsent(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  doc: DocumentRow,
  signer: SignerRow,
  meta: RequestMeta,
): Promise<{ signerId: string; locale: string; sha256: string; consentedAt: string }> {
  const consent = await consentOf(deps.db, doc, signer);
  if (!consent.required)
    throw invalidState('This organization does not ask signers for consent to electronic records');
  if (consent.given && signer.consented_at)
    return {
      signerId: signer.id,
      locale: consent.locale,
      sha256: consent.sha256,
      consentedAt: signer.consented_at,
    };
  const { consentedAt } = await deps.db
    .transaction()
    .execute((trx) => recordConsent(trx, deps, doc, signer, consent, meta));
  return { signerId: signer.id, locale: consent.locale, sha256: consent.sha256, consentedAt };
}
