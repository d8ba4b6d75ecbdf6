import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, hasChromium, launchBrowser, NO_CHROMIUM_REASON, type TestBrowser } from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let origin: string;
let browser: TestBrowser;

describe.skipIf(!hasChromium)('/docs in Chromium', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is titled and coloured Signet, has no framework bar, lists every operation, and loads nothing from elsewhere', async () => {
    const page = await browser.newPage({ width: 1280, height: 900 });
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await page.goto(`${origin}/docs`);
    const operations = Object.values((await t.request('GET', '/openapi.json', { key: null })).body.paths as Record<string, object>).reduce<number>((n, p) => n + Object.keys(p).length, 0);
    await eventually(() => page.locator('.opblock').count()).toBe(operations);
    expect(await page.title()).toBe('Signet API reference');
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    expect(await page.getByPlaceholder(/explore/i).count() + (await page.locator('.download-url-input:visible').count())).toBe(0);
    expect(await page.locator('.info .title').textContent()).toContain('Signet API');
    expect(await page.locator('link[rel="icon"]').first().getAttribute('href')).toMatch(/favicon\.svg$/);
    const shot = path.join(os.tmpdir(), `signet-docs-${process.pid}.png`);
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    fs.rmSync(shot);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
