import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { linkFor, openSigningPage, pageProblems, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let browser: TestBrowser;

describe.skipIf(!hasChromium)("the organization's branding on the signing page", () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows its colour, its logo in the top bar and its name', async () => {
    const logo = await sharp({
      create: { width: 160, height: 40, channels: 3, background: '#0F766E' },
    })
      .png()
      .toBuffer();
    const org = await t.request('PATCH', '/api/v1/organization', {
      body: {
        name: 'Acme Consulting',
        brandColor: '#0F766E',
        logo: `data:image/png;base64,${logo.toString('base64')}`,
      },
    });
    expect(org.status).toBe(200);
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 70, width: 35, height: 7 }],
    });
    const page = await browser.newPage({ width: 1280, height: 900 });
    await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0].id));
    await eventually(() =>
      page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
      ),
    ).toBe('#0F766E');
    const img = page.locator('.topbar .brand img');
    expect(await img.getAttribute('src')).toBe(org.body.data.logoUrl);
    expect(await img.getAttribute('alt')).toBe('Acme Consulting');
    await eventually(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(160);
    expect(await page.locator('.intro-meta').textContent()).toContain('From Acme Consulting');
    expect(pageProblems(browser.problems)).toEqual([]);
    await page.close();
  });
});
