import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
import {
  aSignedPdf,
  axeViolations,
  EVERY_TYPE,
  mailCount,
  mailedCode,
  msg,
} from './a11y-helpers.ts';
import { volunteerCampaign } from '../campaigns/setup.ts';
import { linkFor, openSigningPage, pageProblems, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/*
 * axe-core (WCAG 2.0/2.1, A and AA) finds no serious or critical violation on the signing,
 * campaign and verify pages, in English and Arabic, at 375 and 1280 px, in every state they have:
 * access code, consent, the document, the signature, decline and code dialogs, each error, the
 * completion and the full-page states of a used, expired or unknown link.
 */
let t: TestApp;
let origin: string;
let browser: TestBrowser;
let dir: string;
let signedPdf: string;

const LANGS = ['en', 'ar'] as const;
const ACCESS_CODE = 'Harbor-42';
const fields = [
  { type: 'signature', page: 1, x: 10, y: 60, width: 35, height: 7, assignedTo: 0 },
  { type: 'text', page: 1, x: 10, y: 20, width: 40, height: 3, label: 'Job title', assignedTo: 0 },
  { type: 'checkbox', page: 1, x: 60, y: 20, width: 3, height: 2, label: 'Agreed', assignedTo: 0 },
];

/** Waits for an open dialog's heading, then checks the page. */
async function openDialog(page: Page): Promise<void> {
  await visible(page.locator('dialog[open] h2'));
  await page.waitForTimeout(250); // the opening animation, so colours are measured as shown
}

describe.skipIf(!hasChromium)('accessibility of the pages (axe, WCAG 2.1 AA)', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    browser = await launchBrowser();
    dir = await mkdtemp(path.join(os.tmpdir(), 'signet-a11y-'));
    signedPdf = await aSignedPdf(dir);
    const org = await t.request('PATCH', '/api/v1/organization', {
      body: { requireConsent: true },
    });
    expect(org.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(LANGS)(
    'signing page, every step and dialog: %s',
    async (lang) => {
      const doc = await sendDocument(t, {
        otpMethod: 'email',
        expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test', accessCode: ACCESS_CODE }],
        fields: [...fields, ...EVERY_TYPE],
      });
      await t.drainJobs();
      const url = `${await linkFor(t, doc.id, doc.signers[0]!.id)}?lang=${lang}`;
      const page = await browser.newPage({ width: 375, height: 800 });
      const found: string[] = [];
      const check = async (state: string) => found.push(...(await axeViolations(page, state)));

      await openSigningPage(page, url);
      await visible(page.locator('form.access'));
      await check('access code');
      await page.locator('form.access input').fill('wrong-code');
      await page.locator('form.access button[type="submit"]').click();
      await eventually(() => textOf(page.locator('form.access .form-error'))).not.toBe('');
      await check('access code, wrong');
      await page.locator('form.access input').fill(ACCESS_CODE);
      await page.locator('form.access button[type="submit"]').click();

      await visible(page.locator('.consent-text'));
      await check('consent');
      await page.getByRole('button', { name: msg(lang, 'consent.disagree'), exact: true }).click();
      await visible(page.getByRole('button', { name: msg(lang, 'consent.back'), exact: true }));
      await check('consent, confirm declining');
      await page.getByRole('button', { name: msg(lang, 'consent.back'), exact: true }).click();
      await page.getByRole('button', { name: msg(lang, 'consent.agree'), exact: true }).click();

      await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
      await check('document');
      await page.getByRole('button', { name: msg(lang, 'signing.finish'), exact: true }).click();
      await eventually(() => page.locator('.field.is-invalid').count()).toBeGreaterThan(0);
      await check('document, fields missing');

      await page.getByRole('button', { name: msg(lang, 'signing.decline'), exact: true }).click();
      await openDialog(page);
      await page.locator('dialog[open] button[type="submit"]').click();
      await eventually(() => textOf(page.locator('dialog[open] .form-error'))).not.toBe('');
      await check('decline dialog, no reason');
      await page
        .getByRole('button', { name: msg(lang, 'decline.keepSigning'), exact: true })
        .click();

      await page.locator('.field-sign').first().click();
      await openDialog(page);
      await check('signature dialog, draw');
      await page.locator('dialog[open] button[type="submit"]').click();
      await eventually(() => textOf(page.locator('dialog[open] .form-error'))).not.toBe('');
      await check('signature dialog, nothing drawn');
      await page.getByRole('tab', { name: msg(lang, 'pad.type'), exact: true }).click();
      await check('signature dialog, typed');
      await page.locator('dialog[open] button[type="submit"]').click();
      await visible(page.locator('.field-signature.is-filled'));
      await page.locator('.field input:not([type="checkbox"])').first().fill('Engineer');
      await page.locator('.field input[type="checkbox"]').first().check();
      await check('document, filled');

      await page.getByRole('button', { name: msg(lang, 'signing.finish'), exact: true }).click();
      await openDialog(page);
      await check('code dialog');
      const before = mailCount(t);
      await page.getByRole('button', { name: msg(lang, 'otp.send'), exact: true }).click();
      await visible(page.locator('dialog[open] .otp-input'));
      await t.drainJobs();
      const code = mailedCode(t, before);
      await check('code dialog, code sent');
      await page.locator('dialog[open] .otp-input').fill(code === '000000' ? '111111' : '000000');
      await page.locator('dialog[open] button[type="submit"]').click();
      await eventually(() => textOf(page.locator('dialog[open] .form-error'))).not.toBe('');
      await check('code dialog, wrong code');
      await page.locator('dialog[open] .otp-input').fill(code);
      await page.locator('dialog[open] button[type="submit"]').click();
      await visible(page.locator('[data-state]'));
      await check('completion');

      // The same link again: it has been used.
      await openSigningPage(page, url);
      await visible(page.locator('[data-state]'));
      await check('used link');
      // An expired document and an unknown link.
      const expired = await sendDocument(t, {
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
        fields: [fields[0]],
      });
      const expiredUrl = await linkFor(t, expired.id, expired.signers[0]!.id);
      await t.database.handle.db
        .updateTable('documents')
        .set({ status: 'expired' })
        .where('id', '=', expired.id)
        .execute();
      await openSigningPage(page, `${expiredUrl}?lang=${lang}`);
      await visible(page.locator('[data-state="expired"]'));
      await check('expired link');
      await openSigningPage(page, `${origin}/sign/${'A'.repeat(43)}?lang=${lang}`);
      await visible(page.locator('[data-state="invalid"]'));
      await check('unknown link');
      await page.goto(`${origin}/sign/not%20a%20token?lang=${lang}`);
      await check('malformed link');

      // Declining, to its end.
      const declined = await sendDocument(t, {
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
        fields: [fields[0]],
      });
      const declineUrl = await linkFor(t, declined.id, declined.signers[0]!.id);
      await openSigningPage(page, `${declineUrl}?lang=${lang}`);
      await page.getByRole('button', { name: msg(lang, 'consent.agree'), exact: true }).click();
      await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
      await page.getByRole('button', { name: msg(lang, 'signing.decline'), exact: true }).click();
      await openDialog(page);
      await page.locator('dialog[open] textarea').fill('The fee is wrong.');
      await page.locator('dialog[open] button[type="submit"]').click();
      await visible(page.locator('[data-state="you_declined"]'));
      await check('declined');

      // Identity evidence asked first (KYC).
      const kyc = await sendDocument(t, {
        requireKyc: true,
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
        fields: [fields[1]],
      });
      const kycUrl = await linkFor(t, kyc.id, kyc.signers[0]!.id);
      await openSigningPage(page, `${kycUrl}?lang=${lang}`);
      const agree = page.getByRole('button', { name: msg(lang, 'consent.agree'), exact: true });
      if (await agree.count()) await agree.click();
      await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
        msg(lang, 'identity.title'),
      );
      await check('identity step');

      await page.close();
      expect(found).toEqual([]);
    },
    120_000,
  );

  it.each(LANGS)(
    'campaign page: %s',
    async (lang) => {
      const c = await volunteerCampaign(t);
      const page = await browser.newPage({ width: 375, height: 800 });
      const found: string[] = [];
      const check = async (state: string) => found.push(...(await axeViolations(page, state)));
      await page.goto(`${origin}/c/${c.slug}?lang=${lang}`);
      await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
      await eventually(() => page.locator('.page[data-rendered]').count()).toBe(1);
      await check('campaign form');
      await page
        .getByRole('button', { name: msg(lang, 'form.signAndSubmit'), exact: true })
        .click();
      await eventually(() => page.locator('.field.is-invalid').count()).toBeGreaterThan(0);
      await check('campaign form, missing');
      await page.getByLabel(msg(lang, 'field.name'), { exact: true }).fill('Grace Hopper');
      await page.getByLabel(msg(lang, 'field.email'), { exact: true }).fill('grace@example.test');
      await page.locator('input[type="tel"]').fill('+1 650 253 0000');
      await page.locator('.field input:not([type="checkbox"])').first().fill('Arlington');
      await page.locator('.field input[type="checkbox"]').first().check();
      await page.locator('.field-sign').first().click();
      await openDialog(page);
      await check('campaign signature dialog');
      await page.getByRole('tab', { name: msg(lang, 'pad.type'), exact: true }).click();
      await page.locator('dialog[open] input').fill('Grace Hopper');
      await page.locator('dialog[open] button[type="submit"]').click();
      await visible(page.locator('.field-signature.is-filled'));
      await page
        .getByRole('button', { name: msg(lang, 'form.signAndSubmit'), exact: true })
        .click();
      await visible(page.locator('[data-state]'));
      await check('campaign completion');
      await page.goto(`${origin}/c/no-such-form-here?lang=${lang}`);
      await visible(page.locator('h1'));
      await check('campaign unknown link');
      const paused = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
        body: { status: 'paused' },
      });
      expect(paused.status).toBe(200);
      await page.goto(`${origin}/c/${c.slug}?lang=${lang}`);
      await visible(page.locator('h1'));
      await check('campaign paused');
      await page.close();
      expect(found).toEqual([]);
    },
    120_000,
  );

  it.each(LANGS)(
    'verify page, empty, after a check and a failed one: %s',
    async (lang) => {
      const page = await browser.newPage({ width: 375, height: 800 });
      const found: string[] = [];
      const check = async (state: string) => found.push(...(await axeViolations(page, state)));
      await page.goto(`${origin}/verify?lang=${lang}`);
      await check('verify, empty');
      await page.locator('#verify-file').setInputFiles(signedPdf);
      await visible(page.locator('.verify-card'));
      await check('verify, intact');
      const tampered = await readFile(signedPdf);
      tampered[tampered.indexOf('stream\n') + 20] ^= 1;
      const tamperedPath = path.join(dir, `tampered-${lang}.pdf`);
      await writeFile(tamperedPath, tampered);
      await page.locator('#verify-file').setInputFiles(tamperedPath);
      await eventually(() => textOf(page.locator('.verify-summary'))).toBe(
        msg(lang, 'verify.oneInvalid'),
      );
      await check('verify, not valid');
      await page.close();
      expect(found).toEqual([]);
    },
    60_000,
  );

  it('no page reported a script error or a CSP violation', () => {
    // A wrong access code and a wrong emailed code are refused with 401 and 403, as they should be.
    const problems = pageProblems(browser.problems).filter((p) => !/status of 401\b/.test(p));
    expect(problems).toEqual([]);
  });
});
