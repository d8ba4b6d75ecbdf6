import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  hidden,
  isFocused,
  launchBrowser,
  NO_CHROMIUM_REASON,
  textOf,
  visible,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import {
  drawOnPad,
  drawOnPadByTouch,
  getDocument,
  linkFor,
  openSigningPage,
  pageProblems,
  sendDocument,
  startServer,
} from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

const ada = { name: 'Ada Lovelace', email: 'ada@example.test' };
const f = (
  type: string,
  page: number,
  x: number,
  y: number,
  width: number,
  height: number,
  extra: Record<string, unknown> = {},
) => ({
  type,
  page,
  x,
  y,
  width,
  height,
  ...extra,
});

/** One field of every type, over two pages, plus an optional and a read-only one. */
const everyField = [
  f('text', 1, 10, 20, 40, 3, { label: 'Company' }),
  f('number', 1, 55, 20, 20, 3, { label: 'Seats' }),
  f('checkbox', 1, 10, 26, 3, 2, { label: 'I accept the terms' }),
  f('dropdown', 1, 55, 26, 30, 3, { label: 'Plan', options: ['Basic', 'Pro', 'Enterprise'] }),
  f('radio', 1, 10, 32, 30, 9, { label: 'Billing', options: ['Monthly', 'Yearly'] }),
  f('text', 1, 55, 32, 30, 3, { label: 'Notes', required: false }),
  f('text', 1, 55, 38, 30, 3, { label: 'Reference', readOnly: true, defaultValue: 'REF-42' }),
  f('initials', 1, 85, 90, 8, 4),
  f('name', 2, 10, 60, 35, 3),
  f('email', 2, 55, 60, 35, 3),
  f('date', 2, 55, 70, 25, 3, { label: 'Date signed' }),
  f('signature', 2, 10, 70, 35, 7),
];

let t: TestApp;
let browser: TestBrowser;
let shotDir: string;

describe.skipIf(!hasChromium)('signing page in Chromium', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    // One fixed folder, overwritten by each run, so the pictures are easy to find and do not pile up.
    shotDir = path.join(os.tmpdir(), 'signet-screens');
    fs.mkdirSync(shotDir, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('fills every field type, draws a signature, and completes; the API shows the values', async () => {
    const doc = await sendDocument(t, {
      signingType: 'parallel',
      signers: [ada],
      fields: everyField,
    });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    const page = await browser.newPage({ width: 1280, height: 900 });
    await openSigningPage(page, url);

    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Service Agreement',
    );
    expect(await page.locator('.page').count()).toBe(2);
    // Every field of the signer is over its page, at its percent position.
    expect(await page.locator('.field').count()).toBe(everyField.length);
    const pageBox = (await page.locator('.page').first().boundingBox())!;
    const companyBox = (await page
      .locator('.field', { has: page.getByLabel('Company (required)') })
      .boundingBox())!;
    expect(companyBox.x - pageBox.x).toBeCloseTo(pageBox.width * 0.1, 0);
    expect(companyBox.y - pageBox.y).toBeCloseTo(pageBox.height * 0.2, 0);
    expect(companyBox.width).toBeCloseTo(pageBox.width * 0.4, 0);

    // "Start" takes the signer to the first required field, in reading order.
    await page.getByRole('button', { name: 'Start' }).click();
    await eventually(() => isFocused(page.getByLabel('Company (required)'))).toBe(true);
    await page.getByRole('button', { name: 'Next field' }).click();
    await eventually(() => isFocused(page.getByLabel('Seats (required)'))).toBe(true);

    // Finishing early names what is missing, next to the fields.
    await page.getByRole('button', { name: 'Finish' }).click();
    const companyError = page
      .locator('.field', { has: page.getByLabel('Company (required)') })
      .locator('.field-error');
    await eventually(() => textOf(companyError)).toBe('This field is required.');
    await eventually(() => page.getByLabel('Company (required)').getAttribute('aria-invalid')).toBe(
      'true',
    );
    await eventually(() => page.locator('.field.is-invalid').count()).toBe(7);

    await page.getByLabel('Company (required)').fill('Analytical Engines Ltd');
    await hidden(companyError);
    await page.getByLabel('Seats (required)').fill('12.5');
    await page.getByLabel('I accept the terms (required)').check();
    await page.getByLabel('Plan (required)').selectOption('Pro');
    await page.getByRole('radio', { name: 'Yearly' }).check();
    await eventually(() => page.getByLabel('Reference').inputValue()).toBe('REF-42');
    await eventually(() => page.getByLabel('Full name (required)').inputValue()).toBe(
      'Ada Lovelace',
    );
    await page.getByLabel('Email (required)').fill('ada@engines.test');
    await page.getByLabel('Date signed (required)').fill('2026-11-20');

    await page.getByRole('button', { name: 'Initials (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await eventually(() => page.getByLabel('Type your initials').inputValue()).toBe('AL');
    await page.getByRole('button', { name: 'Adopt and sign' }).click();

    await page.getByRole('button', { name: 'Signature (required)' }).click();
    // Adopting an empty pad is refused with a message.
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() => textOf(page.locator('dialog[open] .form-error'))).toContain(
      'Draw your signature first',
    );
    await drawOnPad(page);
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() => page.locator('.field-signature img').getAttribute('src')).toMatch(
      /^data:image\/png;base64,/,
    );
    await eventually(() => textOf(page.locator('.progress'))).toContain('10 of 10 required');
    // No required field left: "Next field" is gone, Finish is the one step left.
    await eventually(() => page.getByRole('button', { name: 'Next field' }).isVisible()).toBe(
      false,
    );

    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'You’re done. Thank you!',
    );

    const after = await getDocument(t, doc.id);
    expect(after.signers[0].status).toBe('completed');
    expect(after.signers[0].signedAt).not.toBeNull();
    const value = (label: string) =>
      after.fields.find((x: { label: string }) => x.label === label)?.value;
    const byType = (type: string) =>
      after.fields.find((x: { type: string }) => x.type === type)?.value;
    expect(value('Company')).toBe('Analytical Engines Ltd');
    expect(value('Seats')).toBe('12.5');
    expect(value('I accept the terms')).toBe('true');
    expect(value('Plan')).toBe('Pro');
    expect(value('Billing')).toBe('Yearly');
    expect(value('Notes')).toBeNull();
    expect(value('Reference')).toBe('REF-42');
    expect(byType('name')).toBe('Ada Lovelace');
    expect(byType('email')).toBe('ada@engines.test');
    expect(value('Date signed')).toBe('2026-11-20');
    expect(byType('initials')).toBe('AL');
    const signature = byType('signature') as string;
    expect(signature).toMatch(/^data:image\/png;base64,/);
    // A real PNG with ink in it, not a blank canvas.
    const png = Buffer.from(signature.split(',')[1], 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(500);

    // The link now shows the signer where they stand instead of the form.
    await openSigningPage(page, url);
    await visible(page.locator('[data-state="signed"], [data-state="completed"]'));
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });

  it('can be completed with the keyboard alone', async () => {
    const doc = await sendDocument(t, {
      signers: [ada],
      fields: [
        f('text', 1, 10, 20, 40, 3, { label: 'Job title' }),
        f('signature', 1, 10, 30, 35, 7),
      ],
    });
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));

    // Tab from the top of the page until the first field has the focus.
    const title = page.getByLabel('Job title (required)');
    for (let i = 0; i < 20 && !(await title.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await eventually(() => isFocused(title)).toBe(true);
    // The focus is visible.
    expect(await title.evaluate((el) => getComputedStyle(el).boxShadow)).not.toBe('none');
    await page.keyboard.type('Countess');
    await page.keyboard.press('Tab');
    await eventually(() =>
      isFocused(page.getByRole('button', { name: 'Signature (required)' })),
    ).toBe(true);
    await page.keyboard.press('Enter');
    await visible(page.getByRole('dialog', { name: 'Add your signature' }));
    await eventually(() => isFocused(page.getByRole('tab', { name: 'Draw' }))).toBe(true);
    await page.keyboard.press('ArrowRight');
    await eventually(() => isFocused(page.getByRole('tab', { name: 'Type' }))).toBe(true);
    await page.keyboard.press('Tab');
    await eventually(() => isFocused(page.getByLabel('Type your full name'))).toBe(true);
    await eventually(() => page.getByLabel('Type your full name').inputValue()).toBe(
      'Ada Lovelace',
    );
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
    // Focus returns to the field that opened the pad.
    await eventually(() => isFocused(page.locator('.field-signature button'))).toBe(true);
    await eventually(() => textOf(page.locator('.field-signature .typed'))).toBe('Ada Lovelace');

    const finish = page.getByRole('button', { name: 'Finish' });
    for (let i = 0; i < 10 && !(await finish.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await eventually(() => isFocused(finish)).toBe(true);
    await page.keyboard.press('Space');
    await visible(page.locator('[data-state="done_all"]'));

    const after = await getDocument(t, doc.id);
    expect(after.signers[0].status).toBe('completed');
    expect(after.fields.map((x: { value: string }) => x.value)).toEqual([
      'Countess',
      'Ada Lovelace',
    ]);
    await page.close();
  });

  it('fits a 375 px phone screen without horizontal scrolling', async () => {
    const doc = await sendDocument(t, {
      signingType: 'parallel',
      signers: [ada],
      fields: everyField,
    });
    const page = await browser.newPage({ width: 375, height: 740 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));
    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);

    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    const pageBox = (await page.locator('.page').first().boundingBox())!;
    expect(pageBox.x).toBeGreaterThanOrEqual(0);
    expect(pageBox.x + pageBox.width).toBeLessThanOrEqual(375);
    // Fields scale with the page: the same percentages of a narrower page.
    const company = (await page
      .locator('.field', { has: page.getByLabel('Company (required)') })
      .boundingBox())!;
    expect(company.width).toBeCloseTo(pageBox.width * 0.4, 0);
    // The rendered canvas is as sharp as the screen, not a blown-up thumbnail.
    const canvasWidth = await page
      .locator('.page')
      .first()
      .locator('canvas')
      .evaluate((c) => (c as HTMLCanvasElement).width);
    expect(canvasWidth).toBeGreaterThanOrEqual(Math.floor(pageBox.width));
    await page.screenshot({ path: path.join(shotDir, 'signing-375.png') });

    // The signature pad fits too, and a finger draws on it (the page does not scroll instead).
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    const pad = page.locator('dialog[open] .pad-wrap canvas');
    expect(await pad.evaluate((el) => getComputedStyle(el).touchAction)).toBe('none');
    await pad.evaluate((el) => {
      el.dataset.pointerTypes = '';
      el.addEventListener(
        'pointermove',
        (e) => (el.dataset.pointerTypes += `${(e as PointerEvent).pointerType} `),
      );
    });
    await drawOnPadByTouch(page);
    expect(new Set((await pad.getAttribute('data-pointer-types'))!.trim().split(' '))).toEqual(
      new Set(['touch']),
    );
    await eventually(() =>
      pad.evaluate((el) => el.parentElement!.classList.contains('has-ink')),
    ).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    const dialogBox = (await page.locator('dialog[open]').boundingBox())!;
    expect(dialogBox.x).toBeGreaterThanOrEqual(0);
    expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(375);
    const padBox = (await pad.boundingBox())!;
    expect(padBox.x).toBeGreaterThan(dialogBox.x);
    expect(padBox.x + padBox.width).toBeLessThan(dialogBox.x + dialogBox.width);
    expect(padBox.height).toBeGreaterThanOrEqual(120);
    expect(await page.locator('dialog[open]').evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(
      true,
    );
    await page.screenshot({ path: path.join(shotDir, 'signature-pad-375.png') });
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await visible(page.locator('.field-signature img'));
    console.info(`screenshots: ${shotDir}`);
    await page.close();
  });

  it('asks for the emailed code before completing when the document uses OTP', async () => {
    const doc = await sendDocument(t, {
      otpMethod: 'email',
      signers: [ada],
      fields: [f('signature', 1, 10, 30, 35, 7)],
    });
    await t.drainJobs();
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Finish' }).click();

    const dialog = page.getByRole('dialog', { name: 'Confirm your identity' });
    await visible(dialog);
    const mailsBefore = (t.mailer as { sent: { to: string; text: string }[] }).sent.length;
    await dialog.getByRole('button', { name: 'Email me a code' }).click();
    await eventually(() => textOf(dialog)).toContain('a***@example.test');
    await t.drainJobs();
    const mails = (
      t.mailer as { sent: { to: string; text?: string; html?: string; subject: string }[] }
    ).sent.slice(mailsBefore);
    const code = mails
      .map((m) => /\b(\d{6})\b/.exec(`${m.subject} ${m.text ?? ''}`)?.[1])
      .find(Boolean);
    expect(code, JSON.stringify(mails)).toBeTruthy();

    const wrong = code === '000000' ? '111111' : '000000';
    await dialog.getByLabel('6-digit code').fill(wrong);
    await dialog.getByRole('button', { name: 'Confirm and sign' }).click();
    await eventually(() => textOf(dialog.locator('.form-error'))).toContain('wrong');
    expect((await getDocument(t, doc.id)).signers[0].status).not.toBe('completed');

    await dialog.getByLabel('6-digit code').fill(code!);
    await dialog.getByRole('button', { name: 'Confirm and sign' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect((await getDocument(t, doc.id)).signers[0].status).toBe('completed');
    await page.close();
  });
  it('asks for identity evidence first when the document requires KYC, then lets the signer sign once approved', async () => {
    const doc = await sendDocument(t, {
      requireKyc: true,
      signers: [ada],
      fields: [f('text', 1, 10, 20, 40, 3, { label: 'Job title' })],
    });
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, url);
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Verify your identity',
    );

    // No file: a message next to the input, and nothing sent.
    await page.getByRole('button', { name: 'Upload and continue' }).click();
    await eventually(() => textOf(page.locator('.kyc .form-error[role="alert"]').last())).toBe(
      'Choose a photo of your identity document.',
    );

    const { default: sharp } = await import('sharp');
    const photo = await sharp({
      create: { width: 64, height: 40, channels: 3, background: '#88aacc' },
    })
      .png()
      .toBuffer();
    await page
      .getByLabel('Photo of your passport, ID card or driving licence')
      .setInputFiles({ name: 'id.png', mimeType: 'image/png', buffer: photo });
    await visible(page.getByRole('img', { name: 'Preview of the selected image' }));
    await page.getByRole('button', { name: 'Upload and continue' }).click();
    await visible(page.locator('[data-state="identity_pending"]'));
    expect((await getDocument(t, doc.id)).status).toBe('action_required');

    const review = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/verification`,
      { body: { decision: 'approve' } },
    );
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    await openSigningPage(page, url);
    await page.getByLabel('Job title (required)').fill('Analyst');
    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect((await getDocument(t, doc.id)).signers[0].status).toBe('completed');
    await page.close();
  });
  it('a signer without any field signs the document as a whole: Finish opens the pad first', async () => {
    // Grace has no field of her own: the document's one field is Ada's.
    const grace = { name: 'Grace Hopper', email: 'grace@example.test' };
    const doc = await sendDocument(t, {
      signingType: 'parallel',
      signers: [ada, grace],
      fields: [f('signature', 1, 10, 30, 35, 7, { assignedTo: 0 })],
    });
    const page = await browser.newPage({ width: 1024, height: 800 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[1].id));
    await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
    expect(await page.locator('.field').count()).toBe(0);

    // Closing the pad sends nothing.
    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(page.locator('dialog[open] .pad-wrap'));
    await page.locator('dialog[open]').getByRole('button', { name: 'Cancel' }).click();
    await hidden(page.locator('dialog[open]'));
    expect((await getDocument(t, doc.id)).signers[1].status).not.toBe('completed');

    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    expect(await page.locator('dialog[open] input.input').inputValue()).toBe('Grace Hopper');
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await visible(page.locator('[data-state="done"]'));
    expect((await getDocument(t, doc.id)).signers[1].status).toBe('completed');
    await page.close();
  });
  it('no page reported a script error, a CSP violation or a pdf.js warning', () => {
    expect(pageProblems(browser.problems)).toEqual([]);
  });
});
