import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  isFocused,
  launchBrowser,
  NO_CHROMIUM_REASON,
  textOf,
  visible,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import {
  getDocument,
  linkFor,
  openSigningPage,
  pageProblems,
  sendDocument,
  startServer,
} from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

const two = [
  { name: 'Ada Lovelace', email: 'ada@example.test' },
  { name: 'Charles Babbage', email: 'charles@example.test' },
];
const fields = [
  { type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 6, assignedTo: 0 },
  { type: 'signature', page: 1, x: 55, y: 70, width: 30, height: 6, assignedTo: 1 },
];

let t: TestApp;
let origin: string;
let browser: TestBrowser;

describe.skipIf(!hasChromium)('signing page states in Chromium', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a signer declines with a reason: the document is declined, and the others see it', async () => {
    const doc = await sendDocument(t, { signingType: 'parallel', signers: two, fields });
    const ada = await linkFor(t, doc.id, doc.signers[0].id);
    const charles = await linkFor(t, doc.id, doc.signers[1].id);
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, charles);

    await page.getByRole('button', { name: 'Decline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Decline to sign?' });
    await visible(dialog);
    await eventually(() => isFocused(dialog.getByLabel('Reason'))).toBe(true);
    // A reason is required.
    await dialog.getByRole('button', { name: 'Decline to sign' }).click();
    await eventually(() => textOf(dialog.locator('.form-error'))).toBe(
      'Tell the sender why you are declining.',
    );
    await dialog.getByLabel('Reason').fill('The fee in section 4 is wrong.');
    await dialog.getByRole('button', { name: 'Decline to sign' }).click();
    await visible(page.locator('[data-state="you_declined"]'));

    const after = await getDocument(t, doc.id);
    expect(after.status).toBe('declined');
    expect(after.signers[1].status).toBe('declined');
    const audit = await t.request('GET', `/api/v1/documents/${doc.id}/audit`);
    expect(
      audit.body.data.find((e: { action: string }) => e.action === 'signer.declined').details,
    ).toContain('The fee in section 4 is wrong.');

    // Back on either signer's link: a readable state, not a form.
    await openSigningPage(page, charles);
    await visible(page.locator('[data-state="declined"]'));
    await openSigningPage(page, ada);
    await visible(page.locator('[data-state="declined"]'));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'This document was declined',
    );
    await page.close();
  });

  it('the second signer of a sequential document is told it is not their turn yet', async () => {
    const doc = await sendDocument(t, { signingType: 'sequential', signers: two, fields });
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[1].id));
    await visible(page.locator('[data-state="not_your_turn"]'));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'It’s not your turn yet',
    );
    await eventually(() => page.locator('.field').count()).toBe(0);
    // It says who signs first.
    expect(await page.locator('.signing-order li').allTextContents()).toEqual([
      'Ada LovelaceSigning now',
      'Charles Babbage (you)Waiting',
    ]);
    // The heading takes the focus, so screen readers announce the state.
    await eventually(() => isFocused(page.getByRole('heading', { level: 1 }))).toBe(true);
    await eventually(() => textOf(page.locator('#announcer'))).toBe('It’s not your turn yet');
    await page.close();
  });

  it('a cancelled document says so', async () => {
    const doc = await sendDocument(t, { signingType: 'parallel', signers: two, fields });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    expect((await t.request('POST', `/api/v1/documents/${doc.id}/cancel`)).status).toBe(200);
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, url);
    await visible(page.locator('[data-state="cancelled"]'));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'This document was cancelled',
    );
    await page.close();
  });

  it('an unknown link and a malformed link both say the link is not valid', async () => {
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, `${origin}/sign/${'A'.repeat(43)}`);
    await visible(page.locator('[data-state="invalid"]'));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'This signing link is not valid',
    );
    expect(await textOf(page.locator('main'))).not.toMatch(/Error:|at .*\.js|stack/);

    const res = await page.goto(`${origin}/sign/not%20a%20token`);
    expect(res?.status()).toBe(404);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'This signing link is not valid',
    );
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });
  it('no page reported a script error, a CSP violation or a pdf.js warning', () => {
    expect(pageProblems(browser.problems)).toEqual([]);
  });
});
