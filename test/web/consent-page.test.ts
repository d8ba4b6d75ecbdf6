import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
  textOf,
  visible,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { getDocument, linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let browser: TestBrowser;

const signature = {
  type: 'signature',
  page: 1,
  x: 10,
  y: 30,
  width: 35,
  height: 7,
  assignedTo: 0,
};
const DISCLOSURE = {
  en: 'Paper copies\n\nAsk Example Ltd for a paper copy at any time; it costs nothing.',
  de: 'Papierkopien\n\nSie erhalten jederzeit kostenlos eine Papierkopie.',
};

async function openAt375(url: string) {
  const page = await browser.newPage({ width: 375, height: 740 });
  const apiCalls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/v1/signing/'))
      apiCalls.push(`${r.method()} ${new URL(r.url()).pathname.split('/').slice(5).join('/')}`);
  });
  await openSigningPage(page, url);
  return { page, apiCalls };
}

describe.skipIf(!hasChromium)('signing page: consent to electronic records', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    const res = await t.request('PATCH', '/api/v1/organization', {
      body: { requireConsent: true, consentText: DISCLOSURE },
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the disclosure before the document at 375 px; "I agree" leads to signing', async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
      fields: [signature],
    });
    const { page, apiCalls } = await openAt375(await linkFor(t, doc.id, doc.signers[0].id));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Before you see the document',
    );
    const text = page.locator('.consent-text');
    expect(await textOf(text)).toContain('Ask Example Ltd for a paper copy');
    expect(await text.locator('p').count()).toBe(2);
    // Nothing of the document: no pages, no file request.
    expect(await page.locator('.page').count()).toBe(0);
    expect(apiCalls).not.toContain('GET file');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    const agree = page.getByRole('button', { name: 'I agree', exact: true });
    const box = (await agree.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    await agree.click();
    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
    expect(apiCalls).toContain('POST consent');
    const consented = (
      await t.request('GET', `/api/v1/signing/${url2token(page.url())}`, { key: null })
    ).body.data.consent;
    expect(consented).toMatchObject({ required: true, given: true, locale: 'en' });

    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect((await getDocument(t, doc.id)).signers[0].status).toBe('completed');
    await page.close();
  });

  it('"I do not agree", confirmed, declines with consent_withdrawn; "Go back" does not', async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada2@example.test' }],
      fields: [signature],
    });
    const { page, apiCalls } = await openAt375(await linkFor(t, doc.id, doc.signers[0].id));
    await page.getByRole('button', { name: 'I do not agree' }).click();
    await visible(page.getByRole('heading', { name: 'Decline this signing request?' }));
    await page.getByRole('button', { name: 'Go back' }).click();
    expect(apiCalls).not.toContain('POST decline');
    await page.getByRole('button', { name: 'I do not agree' }).click();
    await page.getByRole('button', { name: 'Yes, decline' }).click();
    await visible(page.locator('[data-state="you_declined"]'));
    expect(apiCalls).not.toContain('GET file');
    expect((await getDocument(t, doc.id)).status).toBe('declined');
    const audit = await t.request('GET', `/api/v1/documents/${doc.id}/audit`);
    expect(JSON.stringify(audit.body)).toContain('consent_withdrawn');
    await page.close();
  });

  it("speaks the page's language", async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada3@example.test' }],
      fields: [signature],
    });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    const { page } = await openAt375(`${url}?lang=de`);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Bevor Sie das Dokument sehen',
    );
    expect(await page.getByRole('button', { name: 'Ich stimme zu', exact: true }).count()).toBe(1);
    await page.close();
  });
});

const url2token = (url: string) => new URL(url).pathname.split('/').filter(Boolean).pop()!;
