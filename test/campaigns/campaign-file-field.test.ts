import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { field, samplePdf } from '../helpers/factories.ts';
import { hasPoppler, poppler } from '../pdf/pdf-helpers.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';
import { pageProblems, startServer } from '../web/setup.ts';
import { createCampaign } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let origin: string;
let browser: TestBrowser;
let dir: string;

describe.skipIf(!hasChromium)('a file field on the campaign page (375 px phone)', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    browser = await launchBrowser();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-campaign-file-'));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads, shows name and size, replaces, submits; the signed PDF lists the file with its SHA-256', async () => {
    const tpl = await createTemplate(t, {
      name: 'Tenancy application',
      roles: [{ name: 'Applicant' }],
      fields: [
        field({ type: 'file', label: 'Proof of address', x: 10, y: 20, width: 60, height: 4 }),
        field({ type: 'signature', label: 'Signature', x: 10, y: 40, width: 40, height: 6 }),
      ],
    });
    await giveTemplateFile(t, tpl);
    const c = await createCampaign(t, { templateId: tpl, name: 'Tenancy', collectPhone: false });
    const first = path.join(dir, 'first draft.pdf');
    const chosen = path.join(dir, 'Utility bill – März.pdf');
    fs.writeFileSync(first, await samplePdf(1, 'first'));
    const bytes = await samplePdf(2, 'Utility bill');
    fs.writeFileSync(chosen, bytes);

    const page = await browser.newPage({ width: 375, height: 740 });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/c/${c.slug}`);
    await page.waitForSelector('body[data-view="campaign"]', { timeout: 20_000 });
    await eventually(() => page.locator('.page[data-rendered]').count()).toBe(1);
    const control = page.getByRole('button', { name: /Proof of address \(required\)/ });
    await visible(control);
    expect(await control.isDisabled()).toBe(false);
    const input = page.locator('.field-file + input[type=file]');
    await input.setInputFiles(first);
    await eventually(() => textOf(control)).toMatch(/^first draft\.pdf .* · Replace$/);
    // Choosing again replaces the upload.
    await input.setInputFiles(chosen);
    await eventually(() => textOf(control)).toMatch(
      /^Utility bill – März\.pdf \d+(\.\d)? KB · Replace$/,
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );

    await page.getByLabel('Full name').fill('Ann Applicant');
    await page.getByLabel('Email').fill('ann@example.test');
    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Sign and submit' }).click();
    await visible(page.locator('[data-state="done_all"]'));

    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    expect(subs).toHaveLength(1);
    const doc = (await t.request('GET', `/api/v1/documents/${subs[0].id}`)).body.data;
    const sha = createHash('sha256').update(bytes).digest('hex');
    // The replaced first file is not the document's.
    expect(doc.attachments).toHaveLength(1);
    expect(doc.attachments[0]).toMatchObject({
      name: 'Utility bill – März.pdf',
      sha256: sha,
      fileSize: bytes.length,
      kind: 'signer_upload',
    });
    await t.drainJobs();
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'completed',
    );
    if (hasPoppler) {
      const signed = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/download`,
        headers: { authorization: `Bearer ${t.key}` },
      });
      const file = path.join(dir, 'signed.pdf');
      fs.writeFileSync(file, signed.rawPayload);
      const text = poppler('pdftotext', [file, '-']).output.replace(/\s+/g, '');
      expect(text).toContain(sha);
    }
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  }, 90_000);
});
