import fs from 'node:fs/promises';
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
import { axeViolations } from './a11y-helpers.ts';
import { getDocument, linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/** The code step of a signer whose codes go by SMS (spooled: no SMS_URL), in a real browser. */
describe.skipIf(!hasChromium)('signing page: codes by SMS', () => {
  let t: TestApp;
  let browser: TestBrowser;
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says the code goes to the masked phone, keeps autocomplete="one-time-code", and signs with the texted code', async () => {
    const doc = await sendDocument(t, {
      otpMethod: 'sms',
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test', phone: '+1 415 555 0123' }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 30, width: 35, height: 7, assignedTo: 0 }],
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
    expect(await textOf(dialog)).toContain('text a 6-digit code to +1 ••• ••• 0123');
    // axe (serious and critical, WCAG 2.1 AA) at 375 and 1280 px, before and after the code is sent.
    const found = await axeViolations(page, 'SMS code dialog');
    await dialog.getByRole('button', { name: 'Text me a code' }).click();
    await eventually(() => textOf(dialog)).toContain('We texted a 6-digit code to +1 ••• ••• 0123');
    found.push(...(await axeViolations(page, 'SMS code dialog, code sent')));
    expect(found).toEqual([]);
    const input = dialog.getByLabel('6-digit code');
    expect(await input.getAttribute('autocomplete')).toBe('one-time-code');
    await t.drainJobs();
    const dir = path.join(t.app.deps.config.dataDir, 'sms');
    const [file] = await fs.readdir(dir);
    const message = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8'));
    expect(message.to).toBe('+14155550123');
    const code = /\b(\d{6})\b/.exec(message.body)![1];

    await input.fill(code);
    await dialog.getByRole('button', { name: 'Confirm and sign' }).click();
    await visible(page.locator('[data-state="done_all"]'));
    expect((await getDocument(t, doc.id)).signers[0].status).toBe('completed');
    await page.close();
  });
});
