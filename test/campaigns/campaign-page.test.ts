import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
import type { MemoryMailer, TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';
import { drawOnPad, pageProblems, startServer } from '../web/setup.ts';
import { createCampaign, volunteerCampaign } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let origin: string;
let browser: TestBrowser;
/** Where campaigns send visitors afterwards: a separate site on 127.0.0.1, like the organization's own. */
let thanks: http.Server;
let thanksUrl: string;

const campaignOnTemplate = (extra: Record<string, unknown> = {}) =>
  volunteerCampaign(t, { brandColor: '#0F766E', redirectUrl: thanksUrl, ...extra });

describe.skipIf(!hasChromium)('campaign page in Chromium', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    thanks = http.createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Thanks</title><h1>Thank you</h1>'),
    );
    await new Promise<void>((resolve) => thanks.listen(0, '127.0.0.1', resolve));
    thanksUrl = `http://127.0.0.1:${(thanks.address() as AddressInfo).port}/thanks?from=signet`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => thanks?.close(resolve));
  });

  it('a visitor fills the form, signs, and lands on the redirect URL; the API shows the signed submission', async () => {
    const c = await campaignOnTemplate();
    const page = await browser.newPage({ width: 1280, height: 900 });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/c/${c.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    await eventually(() => page.locator('.page[data-rendered]').count()).toBe(1);
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('Join our volunteers');
    expect(await textOf(page.locator('.intro-message'))).toBe(
      'Fill in your details and sign the agreement.',
    );
    expect(
      await page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
      ),
    ).toBe('#0F766E');
    expect(await page.locator('.field').count()).toBe(3);

    // Submitting early names what is missing.
    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await eventually(() =>
      textOf(
        page.locator('.form-row', { has: page.getByLabel('Full name') }).locator('.form-error'),
      ),
    ).toBe('Enter your full name.');
    await eventually(() => page.locator('.field.is-invalid').count()).toBe(3);

    await page.getByLabel('Full name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@example.test');
    await page.getByLabel('Phone').fill('+1 555 0199');
    await page.getByLabel('City (required)').fill('Arlington');
    await page.getByLabel('I agree (required)').check();
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await drawOnPad(page);
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await eventually(() => page.locator('.field-signature img').getAttribute('src')).toMatch(
      /^data:image\/png;base64,/,
    );

    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await page.waitForURL(thanksUrl, { timeout: 20_000 });
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('Thank you');

    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    expect(subs).toHaveLength(1);
    expect(subs[0].signers).toEqual([
      expect.objectContaining({
        name: 'Grace Hopper',
        email: 'grace@example.test',
        status: 'completed',
      }),
    ]);
    const doc = (await t.request('GET', `/api/v1/documents/${subs[0].id}`)).body.data;
    const value = (label: string) =>
      doc.fields.find((f: { label: string }) => f.label === label)?.value;
    expect(value('City')).toBe('Arlington');
    expect(value('I agree')).toBe('true');
    expect(value('Signature')).toMatch(/^data:image\/png;base64,/);
    expect(doc.signers[0].phone).toBe('+1 555 0199');
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });

  it("fills the template's name and email fields from the visitor's details, asks no phone unless collectPhone, and says the document is complete", async () => {
    const tpl = await createTemplate(t, {
      name: 'Membership form',
      roles: [{ name: 'Member' }],
      fields: [
        field({ type: 'name', label: 'Member name', x: 10, y: 20, width: 40, height: 3 }),
        field({ type: 'email', label: 'Member email', x: 10, y: 30, width: 40, height: 3 }),
        field({ type: 'signature', label: 'Signature', x: 10, y: 60, width: 35, height: 7 }),
      ],
    });
    await giveTemplateFile(t, tpl);
    const c = await createCampaign(t, { templateId: tpl, name: 'Members', collectPhone: false });
    const page = await browser.newPage({ width: 1280, height: 900 });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/c/${c.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    await eventually(() => page.locator('.page[data-rendered]').count()).toBe(1);
    expect(await page.getByLabel('Phone').count()).toBe(0);

    await page.getByLabel('Full name').fill('Katherine Johnson');
    await page.getByLabel('Email', { exact: true }).fill('katherine@example.test');
    expect(await page.getByLabel('Member name (required)').inputValue()).toBe('Katherine Johnson');
    expect(await page.getByLabel('Member email (required)').inputValue()).toBe(
      'katherine@example.test',
    );
    // Once the visitor edits the field itself, their details no longer overwrite it.
    await page.getByLabel('Member name (required)').fill('K. Johnson');
    await page.getByLabel('Full name').fill('Katherine G. Johnson');
    expect(await page.getByLabel('Member name (required)').inputValue()).toBe('K. Johnson');

    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await drawOnPad(page);
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect(await textOf(page.locator('[data-state="done_all"]'))).not.toContain(
      'once everyone has signed',
    );
    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    const doc = (await t.request('GET', `/api/v1/documents/${subs[0].id}`)).body.data;
    expect(doc.fields.find((f: { label: string }) => f.label === 'Member name').value).toBe(
      'K. Johnson',
    );
    expect(doc.fields.find((f: { label: string }) => f.label === 'Member email').value).toBe(
      'katherine@example.test',
    );
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });

  it('asks for the emailed code when the campaign requires one', async () => {
    const c = await campaignOnTemplate({ requireOtp: true, collectPhone: false });
    const page = await browser.newPage({ width: 390, height: 844 });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/c/${c.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    expect(await page.getByLabel('Phone').count()).toBe(0);
    await page.getByLabel('Full name').fill('Alan Turing');
    await page.getByLabel('Email').fill('alan@example.test');
    await page.getByLabel('City (required)').fill('Wilmslow');
    await page.getByLabel('I agree (required)').check();
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await eventually(() => page.getByLabel('Type your full name').inputValue()).toBe('Alan Turing');
    await page.getByRole('button', { name: 'Adopt and sign' }).click();

    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await visible(page.getByLabel('6-digit code'));
    await t.drainJobs();
    const mail = (t.mailer as MemoryMailer).sent
      .filter((m) => m.to === 'alan@example.test')
      .at(-1)!;
    const code = /\b(\d{6})\b/.exec(mail.text)![1];
    await page.getByLabel('6-digit code').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Confirm and sign' }).click();
    await eventually(() => textOf(page.locator('dialog[open] .form-error'))).toContain(
      'The code is wrong',
    );
    await page.getByLabel('6-digit code').fill(code);
    await page.getByRole('button', { name: 'Confirm and sign' }).click();
    await page.waitForURL(thanksUrl, { timeout: 20_000 });
    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    expect(subs.map((s: any) => s.signers[0].name)).toEqual(['Alan Turing']);
    await page.close();
  });

  it('with identity verification shows no field and sends the visitor on to their own signing page', async () => {
    const c = await campaignOnTemplate({ requireKyc: true, collectPhone: false });
    const page = await browser.newPage({ width: 1280, height: 900 });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/c/${c.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    await eventually(() => page.locator('.page[data-rendered]').count()).toBe(1);
    expect(await page.locator('.field').count()).toBe(0);
    await page.getByLabel('Full name').fill('Mary Jackson');
    await page.getByLabel('Email').fill('mary@example.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/sign\//, { timeout: 20_000 });
    await eventually(() => textOf(page.getByRole('heading', { level: 1 }))).toBe(
      'Verify your identity',
    );
    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    expect(subs.map((s: any) => s.signers[0].name)).toEqual(['Mary Jackson']);
    await page.close();
  });

  it('shows a clear page for paused, closed and unknown links', async () => {
    const c = await campaignOnTemplate();
    await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { status: 'paused' } });
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const paused = await page.goto(`${origin}/c/${c.slug}`);
    expect(paused?.status()).toBe(409);
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('This form is paused');
    await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { status: 'closed' } });
    await page.goto(`${origin}/c/${c.slug}`);
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('This form is closed');
    const unknown = await page.goto(`${origin}/c/no-such-form-zzzzzz`);
    expect(unknown?.status()).toBe(404);
    expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe('This link is not valid');

    // A campaign paused while the visitor fills the form: the submission shows why it was refused.
    const open = await campaignOnTemplate({ collectPhone: false });
    await page.goto(`${origin}/c/${open.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    await page.getByLabel('Full name').fill('Late Visitor');
    await page.getByLabel('Email').fill('late@example.test');
    await page.getByLabel('City (required)').fill('Nowhere');
    await page.getByLabel('I agree (required)').check();
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await t.request('PATCH', `/api/v1/campaigns/${open.id}`, { body: { status: 'paused' } });
    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await visible(page.locator('[data-state="closed"]'));
    expect(await textOf(page.locator('[data-state="closed"] p'))).toContain('paused');
    await page.close();
  });
});
