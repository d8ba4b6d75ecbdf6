import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  visible,
  type TestBrowser,
} from '../helpers/browser.ts';
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
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    // Every operation, and every webhook event (each shown as the POST it is).
    const operations =
      Object.values(spec.paths as Record<string, object>).reduce<number>(
        (n, p) => n + Object.keys(p).length,
        0,
      ) + Object.keys(spec.webhooks).length;
    await eventually(() => page.locator('.opblock').count()).toBe(operations);
    expect(await page.title()).toBe('Signet API reference');
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    expect(
      (await page.getByPlaceholder(/explore/i).count()) +
        (await page.locator('.download-url-input:visible').count()),
    ).toBe(0);
    expect(await page.locator('.info .title').textContent()).toContain('Signet API');
    expect(await page.locator('link[rel="icon"]').first().getAttribute('href')).toMatch(
      /favicon\.svg$/,
    );
    const shot = path.join(os.tmpdir(), `signet-docs-${process.pid}.png`);
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    fs.rmSync(shot);
    expect(elsewhere).toEqual([]);
    await page.close();
  });

  it('shows the example of every operation: its success answer, and its request body where it takes JSON', async () => {
    const page = await browser.newPage({ width: 1280, height: 900 });
    await page.goto(`${origin}/docs`);
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    await eventually(() => page.locator('.opblock').count()).toBeGreaterThan(0);
    let checked = 0;
    for (const [, item] of Object.entries<Record<string, any>>(spec.paths)) {
      for (const [, op] of Object.entries<any>(item)) {
        const status = Object.keys(op.responses)
          .filter((s) => /^2\d\d$/.test(s))
          .sort()[0];
        const example = op.responses[status].content?.['application/json']?.example;
        const block = page.locator(
          `#operations-${op.tags[0].replace(/\s/g, '_')}-${op.operationId.replace(/\./g, '_')}`,
        );
        await block.locator('.opblock-summary').first().click();
        // The success row shows the example answer (Swagger UI's "Example Value"), not a generated one.
        if (example !== undefined) {
          const panel = block.locator(`tr.response[data-code="${status}"] .highlight-code`).first();
          await visible(panel);
          const first = JSON.stringify(example).slice(0, 12);
          await eventually(async () =>
            ((await panel.textContent()) ?? '').replace(/\s+/g, ''),
          ).toContain(first.replace(/\s+/g, ''));
          checked++;
        }
        const body = op.requestBody?.content?.['application/json']?.example;
        if (body !== undefined) {
          const panel = block.locator('.opblock-section-request-body .highlight-code').first();
          await visible(panel);
          await eventually(async () =>
            ((await panel.textContent()) ?? '').replace(/\s+/g, ''),
          ).toContain(JSON.stringify(body).slice(0, 12).replace(/\s+/g, ''));
        }
        if (op.operationId === 'createDocument') {
          await block.scrollIntoViewIfNeeded();
          await page.screenshot({
            path: path.resolve('.tmp/docs-create-document.png'),
            fullPage: false,
          });
        }
        await block.locator('.opblock-summary').first().click();
      }
    }
    expect(checked).toBeGreaterThan(60);
    fs.mkdirSync(path.resolve('.tmp'), { recursive: true });
    await page.screenshot({ path: path.resolve('.tmp/docs-page.png'), fullPage: false });
    expect(fs.statSync(path.resolve('.tmp/docs-create-document.png')).size).toBeGreaterThan(10_000);
    await page.close();
  }, 600_000);
});
