import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  textOf,
  visible,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/*
 * Zoom on a 375 px phone: "+" twice draws the pages wider than the screen (re-rendered, not
 * stretched), the document area scrolls sideways while the page itself never does, a field
 * still signs, the new level is announced, and "−" / "Fit width" go back. Left to right and
 * right to left; screenshots go to docs/screenshots/.
 */
const SHOTS = new URL('../../docs/screenshots/', import.meta.url);

describe.skipIf(!hasChromium)('document zoom at 375 px', () => {
  let t: TestApp;
  let browser: TestBrowser;

  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each([
    ['en', 'Zoom in', 'Zoom out', 'Fit width', 'Zoom 150%'],
    ['ar', 'تكبير', 'تصغير', 'ملاءمة العرض', null],
  ])('zooms the document and still signs: %s', async (lang, zoomIn, zoomOut, fit, said) => {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
      // On the far side of the page, off screen once zoomed in.
      fields: [{ type: 'signature', page: 1, x: 60, y: 40, width: 35, height: 7, assignedTo: 0 }],
    });
    const page = await browser.newPage({ width: 375, height: 800 });
    await openSigningPage(page, `${await linkFor(t, doc.id, doc.signers[0]!.id)}?lang=${lang}`);
    await page.waitForSelector('.page[data-page="1"][data-rendered="true"]');
    const first = page.locator('.page[data-page="1"]');
    const pages = page.locator('.pages');
    const canvasWidth = () =>
      first.locator('canvas').evaluate((c) => (c as HTMLCanvasElement).width);
    const pageWidth = async () => (await first.boundingBox())!.width;
    const scrollWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    const fitWidth = await pageWidth();
    const fitPixels = await canvasWidth();
    expect(fitWidth).toBeLessThanOrEqual(375);

    const plus = page.getByRole('button', { name: zoomIn });
    const minus = page.getByRole('button', { name: zoomOut });
    expect(await minus.getAttribute('aria-disabled')).toBe('true');
    // Keyboard operable: focus "+" and press Enter, then Space.
    await plus.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    if (said) await eventually(() => textOf(page.locator('.zoom [role="status"]'))).toBe(said);
    else await eventually(() => textOf(page.locator('.zoom [role="status"]'))).not.toBe('');
    await eventually(() => textOf(page.locator('.zoom-level'))).not.toBe('');

    // 150%: the page is wider than the screen, drawn again at its new size (more pixels).
    await eventually(pageWidth).toBeGreaterThan(375);
    expect(Math.round(((await pageWidth()) / fitWidth) * 100)).toBe(150);
    await eventually(canvasWidth).toBeGreaterThan(fitPixels * 1.4);
    // The document area scrolls sideways; the page does not.
    expect(await pages.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await scrollWidth()).toBeLessThanOrEqual(375);
    // It zoomed about the middle of the page, in either direction (scrollLeft is negative in RTL).
    expect(
      await pages.evaluate((el) =>
        Math.abs(Math.abs(el.scrollLeft) - (el.scrollWidth - el.clientWidth) / 2),
      ),
    ).toBeLessThan(3);
    await pages.evaluate((el) => {
      el.scrollLeft = el.scrollWidth * (document.dir === 'rtl' ? -1 : 1);
    });
    expect(await scrollWidth()).toBeLessThanOrEqual(375);
    expect(await page.evaluate(() => window.scrollX)).toBe(0);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: new URL(`zoom-${lang}-375.png`, SHOTS).pathname });

    // The field followed its page and still signs.
    await page.locator('.field-signature button').click();
    await visible(page.locator('dialog[open]'));
    await page.locator('dialog[open] [role="tab"]').nth(1).click();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('dialog[open]').count()).toBe(0);
    await eventually(() => textOf(page.locator('.field-signature .typed'))).toBe('Ada Lovelace');
    expect(await scrollWidth()).toBeLessThanOrEqual(375);

    // Back: "−" once, then "Fit width".
    await minus.click();
    await eventually(async () => Math.round(((await pageWidth()) / fitWidth) * 100)).toBe(125);
    await page.getByRole('button', { name: fit }).click();
    await eventually(pageWidth).toBeCloseTo(fitWidth, 0);
    expect(await pages.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await minus.getAttribute('aria-disabled')).toBe('true');
    await page.close();
  });
});
