import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { linkFor, openSigningPage, pageProblems, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/*
 * The pages in the signer's language: signer → document → organization, `?lang=` over all of
 * them; `<html lang dir>` set, right-to-left for Arabic; the page carries only its own catalog.
 * Screenshots at 375 px go to docs/screenshots/ (README "Languages").
 */
const SHOTS = new URL('../../docs/screenshots/', import.meta.url);

describe.skipIf(!hasChromium)('signing page languages', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let doc: Awaited<ReturnType<typeof sendDocument>>;

  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    doc = await sendDocument(t, {
      signingType: 'parallel',
      locale: 'de-AT',
      signers: [
        { name: 'محمد علي', email: 'mohammed@example.test', locale: 'ar' },
        { name: 'Grete Müller', email: 'grete@example.test' },
      ],
      fields: [
        {
          type: 'text',
          page: 1,
          x: 10,
          y: 20,
          width: 40,
          height: 3,
          label: 'Firma',
          assignedTo: 0,
        },
        { type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 8, assignedTo: 0 },
        {
          type: 'text',
          page: 1,
          x: 10,
          y: 20,
          width: 40,
          height: 3,
          label: 'Firma',
          assignedTo: 1,
        },
        { type: 'signature', page: 1, x: 55, y: 70, width: 30, height: 8, assignedTo: 1 },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(url: string, width = 375) {
    const page = await browser.newPage({ width, height: 800 });
    await openSigningPage(page, url);
    await page.waitForSelector('.actionbar button.btn-primary');
    return page;
  }

  it('speaks the signer’s own locale, right-to-left for Arabic, with inputs that follow their text', async () => {
    const url = await linkFor(t, doc.id, doc.signers[0]!.id);
    const page = await open(url);
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.textContent('.actionbar .btn-primary')).toBe('إنهاء');
    // Only Arabic words travel with the page: no other locale's catalog.
    const catalog = JSON.parse((await page.textContent('#signet-messages')) ?? '{}');
    expect(catalog['signing.finish']).toBe('إنهاء');
    expect(Object.keys(catalog).some((k) => k.startsWith('mail.'))).toBe(false);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: new URL('signing-ar-375.png', SHOTS).pathname, fullPage: false });
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });

  it('falls back to the document’s locale (a regional tag matched to its language)', async () => {
    const url = await linkFor(t, doc.id, doc.signers[1]!.id);
    const page = await open(url);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.getAttribute('html', 'dir')).toBe('ltr');
    expect(await page.textContent('.actionbar .btn-primary')).toBe('Abschließen');
    await page.screenshot({ path: new URL('signing-de-375.png', SHOTS).pathname });
    await page.close();
  });

  it('lets ?lang= and the language picker override it', async () => {
    const url = await linkFor(t, doc.id, doc.signers[1]!.id);
    const page = await open(`${url}?lang=en`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.textContent('.actionbar .btn-primary')).toBe('Finish');
    await page.screenshot({ path: new URL('signing-en-375.png', SHOTS).pathname });
    // The picker's links keep the page and change only its language.
    await page.click('.lang-picker summary');
    await page.click('.lang-list a[lang="ar"]');
    await page.waitForSelector('html[lang="ar"] .actionbar .btn-primary');
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    await page.close();
  });

  it('draws the picker’s marker instead of a character the page’s fonts lack', async () => {
    // A "▾" had to be looked up in the system's other fonts before the first paint of every page.
    const url = await linkFor(t, doc.id, doc.signers[1]!.id);
    const page = await open(url);
    const marker = await page.$eval('.lang-picker summary', (summary) => {
      const after = getComputedStyle(summary, '::after');
      return { content: after.content, width: after.width, border: after.borderBottomWidth };
    });
    expect(marker.content).toBe('""');
    expect(Number.parseFloat(marker.width)).toBeGreaterThan(3);
    expect(Number.parseFloat(marker.border)).toBeGreaterThan(0);
    await page.close();
  });

  it('names no font family between the system’s interface font and its sans-serif', async () => {
    // The browser looks up every family named before one that has a character: on a Japanese or
    // Arabic page, each name ("Segoe UI", Roboto, Arial…) was one more lookup before first paint.
    const url = await linkFor(t, doc.id, doc.signers[0]!.id);
    const page = await open(`${url}?lang=ja`);
    const family = await page.$eval('.loading, main', (el) => getComputedStyle(el).fontFamily);
    expect(family).toBe('system-ui, sans-serif');
    await page.close();
  });

  it.each([
    ['ar', 'إنهاء'],
    ['he', 'סיום'],
  ])(
    'draws a %s page’s letters in a face its font list names, not a system fallback',
    async (lang, finish) => {
      // Chromium's sans-serif for Arabic and Hebrew has none of their letters on Linux: the page
      // waited for two more family lookups and a fallback walk per run of letters before its first
      // paint. Every face that draws the page's own words must be the system font (the one the
      // Latin "Signet" is drawn in) or one the font list names.
      const url = await linkFor(t, doc.id, doc.signers[0]!.id);
      const page = await open(`${url}?lang=${lang}`);
      expect(await page.textContent('.actionbar .btn-primary')).toBe(finish);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const faces = async (selector: string) => {
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
        const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        return fonts.map((f) => f.familyName);
      };
      const [systemFace] = await faces('.brand');
      const named = (
        await page.$eval('.actionbar .btn-primary', (el) => getComputedStyle(el).fontFamily)
      )
        .split(',')
        .map((f) => f.trim().replace(/^"|"$/g, ''));
      const used = await faces('.actionbar .btn-primary');
      expect(used.length).toBeGreaterThan(0);
      for (const face of used) expect([systemFace, ...named]).toContain(face);
      await cdp.detach();
      await page.close();
    },
  );
});

describe('the pages’ stylesheets', () => {
  it('write no words of their own: text drawn by CSS comes from the page, in its language', () => {
    const dir = new URL('../../src/web/client/', import.meta.url);
    const css = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.css'))
      .map((f) => fs.readFileSync(new URL(f, dir), 'utf8'))
      .join('\n');
    // A quoted `content` with a letter in it is a word no catalog translates.
    expect(css.match(/content:\s*["'][^"']*\p{L}[^"']*["']/gu) ?? []).toEqual([]);
  });
});

describe('locales', () => {
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = await startServer());
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the supported locales for any key', async () => {
    const res = await t.request('GET', '/api/v1/locales');
    expect(res.status).toBe(200);
    const codes = res.body.data.map((l: { code: string }) => l.code);
    expect(codes).toHaveLength(21);
    expect(codes).toEqual(expect.arrayContaining(['en', 'de', 'ar', 'he', 'zh-Hant']));
    expect(res.body.data.find((l: { code: string }) => l.code === 'ar')).toEqual({
      code: 'ar',
      name: 'Arabic',
      nativeName: 'العربية',
      direction: 'rtl',
    });
  });

  it('refuses a language Signet does not have, naming the supported ones', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'X', locale: 'xx-YY' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(JSON.stringify(res.body.error.details)).toContain('zh-Hant');
  });

  it('stores locale on documents, signers and campaigns, matched to a supported one', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'X',
        locale: 'pt-BR',
        signers: [{ name: 'A', email: 'a@example.test', locale: 'zh-TW' }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = await t.request('GET', `/api/v1/documents/${res.body.data.id}`);
    expect(got.body.data.locale).toBe('pt');
    expect(got.body.data.signers[0].locale).toBe('zh-Hant');
    const patched = await t.request('PATCH', `/api/v1/documents/${res.body.data.id}`, {
      body: { locale: null },
    });
    expect(patched.status).toBe(200);
    const again = await t.request('GET', `/api/v1/documents/${res.body.data.id}`);
    expect(again.body.data.locale).toBeNull();
  });

  it('keeps defaultLocale and timeZone on the organization', async () => {
    const before = await t.request('GET', '/api/v1/organization');
    expect(before.body.data).toMatchObject({ defaultLocale: 'en', timeZone: 'UTC' });
    const res = await t.request('PATCH', '/api/v1/organization', {
      body: { defaultLocale: 'de-CH', timeZone: 'europe/berlin' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ defaultLocale: 'de', timeZone: 'Europe/Berlin' });
    const bad = await t.request('PATCH', '/api/v1/organization', {
      body: { timeZone: 'Mars/Olympus' },
    });
    expect(bad.status).toBe(400);
  });
});
