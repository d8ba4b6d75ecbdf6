import type { Page } from 'playwright-core';
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
import { axeViolations } from './a11y-helpers.ts';
import { getDocument, linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let browser: TestBrowser;

const signature = { type: 'signature', page: 1, x: 10, y: 30, width: 35, height: 7, assignedTo: 0 };

/** The visible controls under `scope` smaller than 44 × 44 CSS px, each named. */
const smallTargets = (page: Page, scope: string) =>
  page.locator(scope).evaluateAll((roots) => {
    const out: string[] = [];
    for (const root of roots)
      for (const el of root.querySelectorAll('button, a[href], input, textarea')) {
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) continue;
        if (box.width + 0.5 < 44 || box.height + 0.5 < 44)
          out.push(`${el.tagName} "${el.textContent?.trim()}" ${box.width}×${box.height}`);
      }
    return out;
  });

async function handOverDocument(email: string, body: Record<string, unknown> = {}) {
  const doc = await sendDocument(t, {
    allowReassign: true,
    signers: [{ name: 'Ada Lovelace', email }],
    fields: [signature],
    ...body,
  });
  return { doc, url: await linkFor(t, doc.id, doc.signers[0].id) };
}

/** axe's serious and critical findings at 375 and 1280 px (a11y-helpers.ts), back at 375 px after. */
async function axeAt(page: Page, state: string): Promise<string[]> {
  const found = await axeViolations(page, state);
  await page.setViewportSize({ width: 375, height: 740 });
  return found;
}

async function openAt375(url: string) {
  const page = await browser.newPage({ width: 375, height: 740 });
  await openSigningPage(page, url);
  await page.waitForSelector('body[data-view]');
  return page;
}

describe.skipIf(!hasChromium)('signing page: hand over to someone else', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('at 375 px: labelled form, 44 px targets, checks its input, hands over, and the old link says so', async () => {
    const { doc, url } = await handOverDocument('ada@example.test');
    const page = await openAt375(url);
    const action = page.getByRole('button', { name: 'Hand over to someone else' });
    await visible(action);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    expect(await smallTargets(page, '.intro')).toEqual([]);
    await action.click();

    const dialog = page.locator('dialog[open]');
    await visible(dialog.getByRole('heading', { name: 'Hand over to someone else' }));
    const name = dialog.getByLabel('Their full name');
    const email = dialog.getByLabel('Their email address');
    const reason = dialog.getByLabel('Reason');
    for (const input of [name, email, reason]) expect(await input.getAttribute('dir')).toBe('auto');
    expect(await smallTargets(page, 'dialog[open]')).toEqual([]);
    const box = (await dialog.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);

    const found = await axeAt(page, 'hand-over dialog');
    const submit = dialog.getByRole('button', { name: 'Hand over', exact: true });
    await submit.click();
    await eventually(() => textOf(dialog.getByRole('alert'))).toBe(
      'Enter the name of the person who takes over.',
    );
    found.push(...(await axeAt(page, 'hand-over dialog, error')));
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('Grace Hopper');
    await email.fill('ada@example.test');
    await submit.click();
    await eventually(() => textOf(dialog.getByRole('alert'))).toBe(
      'Enter someone else’s address, not your own.',
    );
    await email.fill('grace@example.test');
    await reason.fill('Grace signs for our team while I am on leave');
    await submit.click();

    await visible(page.locator('[data-state="handed_over"]'));
    expect(await textOf(page.locator('[data-state="handed_over"]'))).toContain(
      'Grace Hopper will get an email with a link of their own.',
    );
    expect((await getDocument(t, doc.id)).signers[0]).toMatchObject({
      name: 'Grace Hopper',
      email: 'grace@example.test',
    });
    found.push(...(await axeAt(page, 'handed over')));

    // The old link, opened again: a page of its own, not the document.
    await openSigningPage(page, url);
    await visible(page.locator('[data-state="link_replaced"]'));
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('This link was handed over');
    found.push(...(await axeAt(page, 'link handed over')));
    expect(found).toEqual([]);
    await page.close();
  });

  it('Cancel keeps the signer; no action without allowReassign', async () => {
    const { doc, url } = await handOverDocument('bob@example.test');
    const page = await openAt375(url);
    await page.getByRole('button', { name: 'Hand over to someone else' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => page.locator('dialog[open]').count()).toBe(0);
    expect((await getDocument(t, doc.id)).signers[0].name).toBe('Ada Lovelace');
    await page.close();

    const plain = await handOverDocument('carol@example.test', { allowReassign: false });
    const other = await openAt375(plain.url);
    await visible(other.getByRole('button', { name: 'Finish' }));
    expect(await other.getByRole('button', { name: 'Hand over to someone else' }).count()).toBe(0);
    await other.close();
  });

  it('speaks the page’s language, right to left too', async () => {
    const { url } = await handOverDocument('dana@example.test');
    const page = await openAt375(`${url}?lang=ar`);
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    await page.getByRole('button', { name: 'التسليم إلى شخص آخر' }).click();
    await visible(page.locator('dialog[open]').getByLabel('الاسم الكامل للشخص'));
    expect(await smallTargets(page, 'dialog[open]')).toEqual([]);
    expect(await axeAt(page, 'hand-over dialog (ar)')).toEqual([]);
    await page.close();
  });
});
