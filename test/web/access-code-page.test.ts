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

describe.skipIf(!hasChromium)('signing page: access code step', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('asks for the code before showing the document, at 375 px, then signs with the session', async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test', accessCode: 'Harbor-42' }],
      fields: [signature],
    });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    const page = await browser.newPage({ width: 375, height: 740 });
    const apiCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/signing/'))
        apiCalls.push(`${r.method()} ${new URL(r.url()).pathname.split('/').slice(5).join('/')}`);
    });
    await openSigningPage(page, url);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Enter your access code',
    );
    // Nothing of the document: no name, no pages, no file request.
    expect(await page.locator('.page').count()).toBe(0);
    expect(await textOf(page.locator('body'))).not.toContain('Service Agreement');
    expect(apiCalls).not.toContain('GET file');
    const input = page.getByRole('textbox', { name: 'Access code' });
    expect(await input.getAttribute('autocomplete')).toBe('off');
    expect(await input.getAttribute('autocapitalize')).toBe('off');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    const box = (await page.locator('form.access').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    await input.fill('harbor-42');
    await page.getByRole('button', { name: 'Continue' }).click();
    await eventually(() => textOf(page.locator('form.access .form-error'))).toContain(
      '4 tries left',
    );
    expect(await page.evaluate(() => document.cookie)).toBe('');

    await input.fill('Harbor-42');
    await page.getByRole('button', { name: 'Continue' }).click();
    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
    // A reload keeps the session (sessionStorage), so the code is not asked again.
    await page.reload();
    await page.waitForSelector('body[data-view]');
    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect((await getDocument(t, doc.id)).signers[0].status).toBe('completed');
    await page.close();
  });

  it('shows the locked state after the fifth wrong code', async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada2@example.test', accessCode: 'Harbor-42' }],
      fields: [signature],
    });
    const page = await browser.newPage({ width: 375, height: 740 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));
    const input = page.getByRole('textbox', { name: 'Access code' });
    for (let i = 1; i <= 5; i++) {
      await input.fill(`wrong-${i}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      if (i < 5)
        await eventually(() => textOf(page.locator('form.access .form-error'))).toContain(
          `${5 - i} tr`,
        );
    }
    await visible(page.locator('[data-state="locked"]'));
    await page.close();
  });
  it("asks for the code in the page's language, German and Arabic (right to left)", async () => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada3@example.test', accessCode: 'Harbor-42' }],
      fields: [signature],
    });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    const page = await browser.newPage({ width: 375, height: 740 });
    await openSigningPage(page, `${url}?lang=de`);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Geben Sie Ihren Zugangscode ein',
    );
    await page.getByRole('button', { name: 'Weiter' }).click();
    await eventually(() => textOf(page.locator('form.access .form-error'))).toBe(
      'Geben Sie den Zugangscode ein.',
    );
    await openSigningPage(page, `${url}?lang=ar`);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe('أدخل رمز الوصول');
    expect(await page.getByRole('textbox', { name: 'رمز الوصول' }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    await page.close();
  });
});
