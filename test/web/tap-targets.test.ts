import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/*
 * Every control of the signing page on a 375 px phone is at least 44 × 44 CSS px (WCAG 2.5.5,
 * target size), left to right and right to left: the action bar, the language picker and its
 * links, the signature box on the document, and the signature dialog's tabs, inputs, Clear link
 * and buttons. Screenshots at 375 px go to docs/screenshots/.
 */
const SHOTS = new URL('../../docs/screenshots/', import.meta.url);
const MIN = 44;
const CONTROLS =
  'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="tab"]';

/** The visible controls smaller than MIN in either dimension, each named. */
async function smallTargets(page: Page, scope: string): Promise<string[]> {
  return page.locator(scope).evaluateAll(
    (roots, [selector, min]) => {
      const out: string[] = [];
      for (const root of roots) {
        for (const el of root.querySelectorAll(selector as string)) {
          // An input inside its label is hit anywhere on the label (a tick box's box is its label).
          const box = (el.closest('label') ?? el).getBoundingClientRect();
          const style = getComputedStyle(el);
          if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
          if (box.width + 0.5 < (min as number) || box.height + 0.5 < (min as number)) {
            const name =
              el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 30) || el.className;
            out.push(
              `${el.tagName.toLowerCase()} "${name}" ${box.width.toFixed(1)}×${box.height.toFixed(1)}`,
            );
          }
        }
      }
      return out;
    },
    [CONTROLS, MIN] as const,
  );
}

describe.skipIf(!hasChromium)('signing page tap targets at 375 px', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let doc: Awaited<ReturnType<typeof sendDocument>>;

  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    doc = await sendDocument(t, {
      signingType: 'parallel',
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
      // Boxes smaller than a finger, as senders often draw them.
      fields: [
        { type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 5, assignedTo: 0 },
        { type: 'text', page: 1, x: 10, y: 20, width: 40, height: 3, assignedTo: 0 },
        { type: 'checkbox', page: 1, x: 60, y: 20, width: 3, height: 2, assignedTo: 0 },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(['en', 'ar', 'ja'])('lets a finger hit every control: %s', async (lang) => {
    const url = await linkFor(t, doc.id, doc.signers[0]!.id);
    const page = await browser.newPage({ width: 375, height: 800 });
    await openSigningPage(page, `${url}?lang=${lang}`);
    await page.waitForSelector('.actionbar button.btn-primary');
    expect(await page.getAttribute('html', 'dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
    fs.mkdirSync(SHOTS, { recursive: true });
    if (lang === 'ja')
      await page.screenshot({ path: new URL('signing-ja-375.png', SHOTS).pathname });

    // The page: action bar, header, the fields on the document.
    expect(await page.locator('.field-signature button').count()).toBe(1);
    expect(await page.locator('.field input').count()).toBe(2);
    expect(await smallTargets(page, 'body')).toEqual([]);

    // The language picker, open.
    await page.click('.lang-picker summary');
    await page.waitForSelector('.lang-list a');
    expect(await smallTargets(page, '.lang-picker')).toEqual([]);
    await page.click('.lang-picker summary');

    // The signature dialog, drawing then typing.
    await page.locator('.field-signature button').click();
    await page.waitForSelector('dialog[open]');
    expect(await smallTargets(page, 'dialog[open]')).toEqual([]);
    const tabs = page.locator('dialog[open] [role="tab"]');
    if ((await tabs.count()) > 1) {
      await tabs.nth(1).click();
      expect(await smallTargets(page, 'dialog[open]')).toEqual([]);
    }
    await page.close();
  });
});
