import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';
import { catalogOf } from '../../src/i18n/messages.ts';
import { DEFAULT_CONSENT_TEXT } from '../../src/modules/orgs/consent-text.ts';
import {
  address,
  auditActions,
  eventTypes,
  latestToken,
  type SigningTest,
  sentDocument,
  signingApp,
  typed,
} from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const org = (body: Record<string, unknown>) => t.request('PATCH', '/api/v1/organization', { body });
const session = (token: string) => t.request('GET', `/api/v1/signing/${token}`, { key: null });
const complete = (token: string, extra: Record<string, unknown> = {}) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { values: {}, signature: typed(), ...extra },
  });

async function signer() {
  const email = address('consent');
  const doc = await sentDocument(t, { signers: [{ name: 'Ada Lovelace', email }] });
  return { doc, token: latestToken(t, email) };
}

describe('organization requireConsent and consentText', () => {
  it('defaults to off with the default text; takes a string or locale → text; bounds each', async () => {
    const before = (await t.request('GET', '/api/v1/organization')).body.data;
    expect(before).toMatchObject({ requireConsent: false, consentText: null });
    const set = await org({ requireConsent: true, consentText: { en: 'Paper copies: ask us.' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toMatchObject({
      requireConsent: true,
      consentText: { en: 'Paper copies: ask us.' },
    });
    expect((await org({ consentText: 'x'.repeat(10_001) })).status).toBe(400);
    expect((await org({ consentText: { 'not a locale': 'x' } })).status).toBe(400);
    await org({ requireConsent: false, consentText: null });
  });

  it('without requireConsent, nothing changes for signers', async () => {
    const { token } = await signer();
    expect((await session(token)).body.data.consent).toMatchObject({ required: false });
    expect((await t.request('GET', `/api/v1/signing/${token}/file`, { key: null })).status).toBe(
      200,
    );
    expect((await complete(token)).status).toBe(200);
  });
});

describe('POST /api/v1/signing/{token}/consent', () => {
  it('the default text covers ESIGN §101(c); no file and no completion before consent; kept with its SHA-256', async () => {
    await org({ requireConsent: true, consentText: null });
    const { doc, token } = await signer();
    const { consent } = (await session(token)).body.data;
    expect(consent).toMatchObject({ required: true, given: false, locale: 'en' });
    for (const topic of [
      /paper/i,
      /withdraw/i,
      /browser/i,
      /email address or other contact details change/i,
    ])
      expect(consent.text).toMatch(topic);
    const file = await t.request('GET', `/api/v1/signing/${token}/file`, { key: null });
    expect(file.status).toBe(409);
    expect(file.body.error.code).toBe('consent_required');
    const refused = await complete(token);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('consent_required');

    const given = await t.request('POST', `/api/v1/signing/${token}/consent`, { key: null });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect(given.body.data).toMatchObject({ locale: 'en', sha256: sha(consent.text) });
    // Accepting again answers the first consent, without a second entry.
    const again = await t.request('POST', `/api/v1/signing/${token}/consent`, { key: null });
    expect(again.body.data.consentedAt).toBe(given.body.data.consentedAt);
    expect((await session(token)).body.data.consent.given).toBe(true);
    expect((await t.request('GET', `/api/v1/signing/${token}/file`, { key: null })).status).toBe(
      200,
    );
    expect((await complete(token)).status).toBe(200);

    const row = await t.database.handle.db
      .selectFrom('signers')
      .select(['consent_text', 'consent_locale', 'consent_sha256'])
      .where('id', '=', doc.signers[0].id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      consent_text: consent.text,
      consent_locale: 'en',
      consent_sha256: sha(consent.text),
    });
    const audit = (await t.request('GET', `/api/v1/documents/${doc.id}/audit?limit=100`)).body.data;
    const entry = audit.filter((e: { action: string }) => e.action === 'signer.consented');
    expect(entry).toHaveLength(1);
    expect(entry[0].details).toContain(sha(consent.text));
    expect(await eventTypes(t)).toContain('signer.consented');
    const event = await t.database.handle.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'signer.consented')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const data = typeof event.data === 'string' ? JSON.parse(event.data) : event.data;
    expect(data.consent).toMatchObject({ sha256: sha(consent.text), locale: 'en' });
    expect(data.signer.id).toBe(doc.signers[0].id);
  });

  it('consent: true with complete records it; a changed text is asked again', async () => {
    await org({ requireConsent: true, consentText: 'First text: paper copies on request.' });
    const a = await signer();
    expect((await complete(a.token, { consent: true })).status).toBe(200);
    expect(await auditActions(t, a.doc.id)).toContain('signer.consented');

    const b = await signer();
    expect(
      (await t.request('POST', `/api/v1/signing/${b.token}/consent`, { key: null })).status,
    ).toBe(200);
    await org({ consentText: 'Second text: paper copies on request, free of charge.' });
    const after = (await session(b.token)).body.data.consent;
    expect(after).toMatchObject({
      given: false,
      text: 'Second text: paper copies on request, free of charge.',
    });
    expect((await complete(b.token)).body.error.code).toBe('consent_required');
    expect((await complete(b.token, { consent: true })).status).toBe(200);
    await org({ requireConsent: false, consentText: null });
  });

  it('withdrawal is a decline with reason consent_withdrawn; 409 when the organization asks none', async () => {
    const plain = await signer();
    const res = await t.request('POST', `/api/v1/signing/${plain.token}/consent`, { key: null });
    expect(res.status).toBe(409);
    await org({ requireConsent: true });
    const { doc, token } = await signer();
    const declined = await t.request('POST', `/api/v1/signing/${token}/decline`, {
      key: null,
      body: { reason: 'consent_withdrawn' },
    });
    expect(declined.status).toBe(200);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('declined');
    await org({ requireConsent: false });
  });
  it("shows the organization's text in the signer's locale, else its en text", async () => {
    await org({
      requireConsent: true,
      consentText: { en: 'Paper copies: ask us.', de: 'Papier: fragen Sie uns.' },
    });
    try {
      const de = address('consent-de');
      const fr = address('consent-fr');
      await sentDocument(t, {
        signers: [
          { name: 'Ada Lovelace', email: de, locale: 'de' },
          { name: 'Bob Stone', email: fr, locale: 'fr' },
        ],
        body: { signingType: 'parallel' },
      });
      const session = async (email: string) =>
        (await t.request('GET', `/api/v1/signing/${latestToken(t, email)}`, { key: null })).body
          .data.consent;
      expect(await session(de)).toMatchObject({ text: 'Papier: fragen Sie uns.', locale: 'de' });
      expect(await session(fr)).toMatchObject({ text: 'Paper copies: ask us.', locale: 'en' });
      const given = await t.request('POST', `/api/v1/signing/${latestToken(t, de)}/consent`, {
        key: null,
      });
      expect(given.body.data).toMatchObject({
        locale: 'de',
        sha256: sha('Papier: fragen Sie uns.'),
      });
    } finally {
      await org({ requireConsent: false, consentText: null });
    }
  });
});

describe("Signet's default consent text in every signer language", () => {
  const paragraphs = (text: string) => text.split('\n\n');

  it('has an entry per locale with the English paragraphs, quoting the page’s own button labels', () => {
    const english = paragraphs(DEFAULT_CONSENT_TEXT.en);
    expect(Object.keys(DEFAULT_CONSENT_TEXT).sort()).toEqual([...LOCALE_CODES].sort());
    for (const locale of LOCALE_CODES) {
      const text = DEFAULT_CONSENT_TEXT[locale];
      const own = paragraphs(text);
      expect([locale, own.length]).toEqual([locale, english.length]);
      expect(own.every((p) => p.trim() === p && p.length > 0)).toBe(true);
      if (locale !== 'en')
        expect([locale, own.some((p) => english.includes(p))]).toEqual([locale, false]);
      // Withdrawing names the "I do not agree" button; the last sentence names "I agree" only.
      const { 'consent.agree': agree, 'consent.disagree': disagree } = catalogOf(locale);
      expect([locale, own[3].includes(disagree)]).toEqual([locale, true]);
      expect([locale, own.at(-1)?.includes(agree), own.at(-1)?.includes(disagree)]).toEqual([
        locale,
        true,
        false,
      ]);
      expect([locale, /ESIGN|7001/.test(text)]).toEqual([locale, false]);
    }
  });

  it("gives a signer the default text in the signer's, else the document's, else the organization's language", async () => {
    await org({ requireConsent: true, consentText: null });
    try {
      const de = address('consent-default-de');
      const ja = address('consent-default-ja');
      const plain = address('consent-default-doc');
      const doc = await sentDocument(t, {
        signers: [
          { name: 'Ada Lovelace', email: de, locale: 'de' },
          { name: 'Yuki Tanaka', email: ja, locale: 'ja' },
        ],
        body: { signingType: 'parallel' },
      });
      await sentDocument(t, {
        signers: [{ name: 'Bob Stone', email: plain }],
        body: { locale: 'zh-TW' },
      });
      const consentOf = async (email: string) =>
        (await t.request('GET', `/api/v1/signing/${latestToken(t, email)}`, { key: null })).body
          .data.consent;
      expect(await consentOf(de)).toMatchObject({
        required: true,
        given: false,
        locale: 'de',
        text: DEFAULT_CONSENT_TEXT.de,
      });
      expect(await consentOf(ja)).toMatchObject({ locale: 'ja', text: DEFAULT_CONSENT_TEXT.ja });
      expect(await consentOf(plain)).toMatchObject({
        locale: 'zh-Hant',
        text: DEFAULT_CONSENT_TEXT['zh-Hant'],
      });

      for (const [email, locale] of [
        [de, 'de'],
        [ja, 'ja'],
      ]) {
        const given = await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/consent`, {
          key: null,
        });
        expect(given.status, JSON.stringify(given.body)).toBe(200);
        expect(given.body.data).toMatchObject({
          locale,
          sha256: sha(DEFAULT_CONSENT_TEXT[locale]),
        });
      }
      const rows = await t.database.handle.db
        .selectFrom('signers')
        .select(['consent_text', 'consent_locale', 'consent_sha256'])
        .where('document_id', '=', doc.id)
        .execute();
      expect(
        rows.sort((a, b) => String(a.consent_locale).localeCompare(String(b.consent_locale))),
      ).toEqual(
        ['de', 'ja'].map((locale) => ({
          consent_text: DEFAULT_CONSENT_TEXT[locale],
          consent_locale: locale,
          consent_sha256: sha(DEFAULT_CONSENT_TEXT[locale]),
        })),
      );
    } finally {
      await org({ requireConsent: false, consentText: null });
    }
  });
});
