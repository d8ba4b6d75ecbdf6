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
import { samplePdf } from '../helpers/factories.ts';
import { hasPoppler, poppler } from '../pdf/pdf-helpers.ts';
import {
  getDocument,
  linkFor,
  openSigningPage,
  pageProblems,
  sendDocument,
  startServer,
} from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let browser: TestBrowser;
let dir: string;

describe.skipIf(!hasChromium)('a file field on the signing page (375 px phone)', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-file-field-'));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads, shows name and size, replaces, completes; the signed PDF lists the file with its SHA-256', async () => {
    const doc = await sendDocument(
      t,
      {
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
        fields: [
          { type: 'file', label: 'Proof of address', page: 1, x: 10, y: 20, width: 60, height: 4 },
          { type: 'signature', page: 1, x: 10, y: 40, width: 40, height: 6 },
        ],
      },
      1,
    );
    const first = path.join(dir, 'first draft.pdf');
    const chosen = path.join(dir, 'Utility bill – März.pdf');
    fs.writeFileSync(first, await samplePdf(1, 'first'));
    const bytes = await samplePdf(2, 'Utility bill');
    fs.writeFileSync(chosen, bytes);

    const page = await browser.newPage({ width: 375, height: 740 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));
    const control = page.getByRole('button', { name: /Proof of address \(required\)/ });
    await visible(control);
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

    await page.getByRole('button', { name: 'Signature (required)' }).click();
    await page.getByRole('tab', { name: 'Type' }).click();
    await page.getByRole('button', { name: 'Adopt and sign' }).click();
    await page.getByRole('button', { name: 'Finish' }).click();
    await visible(
      page.locator('[data-state="done_all"], [data-state="signed"], [data-state="completed"]'),
    );

    const detail = await getDocument(t, doc.id);
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(detail.attachments).toHaveLength(1);
    expect(detail.attachments[0]).toMatchObject({
      name: 'Utility bill – März.pdf',
      sha256: sha,
      fileSize: bytes.length,
      kind: 'signer_upload',
    });
    await t.drainJobs();
    expect((await getDocument(t, doc.id)).status).toBe('completed');
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
  }, 60_000);
});
