import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { startServer } from './setup.ts';

/*
 * /docs in Chromium: the reference renders from this server alone (every request elsewhere is
 * blocked), under its Content-Security-Policy with no violation, readable at 375 px as at 1280 px,
 * and a key typed into it stays in the page's memory: nothing in local or session storage,
 * IndexedDB or cookies, and gone after a reload.
 */

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let origin: string;
let browser: TestBrowser;

/** A page on which any request to another origin is refused; `elsewhere` lists those tried. */
async function isolatedPage(width: number): Promise<{ page: Page; elsewhere: string[] }> {
  const page = await browser.newPage({ width, height: 900 });
  const elsewhere: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:'))
      return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  return { page, elsewhere };
}

/** Everything the page keeps in the browser's storage, as one string. */
const stored = (page: Page) =>
  page.evaluate(async () => {
    const parts = [JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
    parts.push(document.cookie);
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name ?? '');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const name of Array.from(db.objectStoreNames)) {
        const all = await new Promise<unknown>((resolve) => {
          const req = db.transaction(name).objectStore(name).getAll();
          req.onsuccess = () => resolve(req.result);
        });
        parts.push(JSON.stringify(all));
      }
      db.close();
    }
    return parts.join('\n');
  });

describe.skipIf(!hasChromium)('/docs in Chromium', () => {
  beforeAll(async () => {
    ({ t, origin } = await startServer());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each([1280, 375])(
    'renders from this server alone at %i px, under its policy, every tag listed, no sideways scrolling',
    async (width) => {
      browser.problems.length = 0;
      fs.mkdirSync(path.resolve('.tmp'), { recursive: true });
      const { page, elsewhere } = await isolatedPage(width);
      const res = await page.goto(`${origin}/docs`);
      expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
      await eventually(() => page.getByRole('heading', { name: 'Signet API' }).count()).toBe(1);
      expect(await page.title()).toBe('Signet API reference');
      const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
      const tags = new Set<string>();
      for (const item of Object.values<Record<string, { tags: string[] }>>(spec.paths))
        for (const op of Object.values(item)) tags.add(op.tags[0]);
      // On a phone the tags are behind the menu button.
      if (width === 375) await page.getByRole('button', { name: 'Open Menu' }).click();
      // biome-ignore lint/performance/useDomNodeTextContent: only text the page shows counts
      const shown = () => page.evaluate(() => document.body.innerText);
      for (const tag of tags) await eventually(shown).toContain(tag);
      if (width === 375) {
        await page.screenshot({ path: path.resolve('.tmp/docs-375-menu.png') });
        await page.keyboard.press('Escape');
      }
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      ).toBe(true);
      const bodySize = await page
        .getByText(/Self-hostable e-signature API/)
        .first()
        .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
      expect(bodySize).toBeGreaterThanOrEqual(14);
      await page.screenshot({ path: path.resolve(`.tmp/docs-${width}.png`) });
      expect(elsewhere).toEqual([]);
      expect(browser.problems.filter((p) => /Content Security Policy|Refused/.test(p))).toEqual([]);
      await page.close();
    },
  );

  it('keeps a key typed into it in memory only: sent with a request, stored nowhere, gone after a reload', async () => {
    const { page } = await isolatedPage(1280);
    await page.goto(`${origin}/docs`);
    const tokenField = page.getByPlaceholder('Token').first();
    await tokenField.fill(t.key);
    await page.getByText('Documents', { exact: true }).first().click();
    const sent = page.waitForRequest(
      (r) => r.url().startsWith(`${origin}/api/v1/documents`) && r.method() === 'GET',
    );
    await page.locator('button', { hasText: 'Test Request(get /api/v1/documents)' }).click();
    await page.getByRole('button', { name: /^Send get request/ }).click();
    const request = await sent;
    expect(request.headers().authorization).toBe(`Bearer ${t.key}`);
    const kept = await stored(page);
    expect(kept).not.toContain(t.key);
    expect(kept).not.toContain('sk_');
    await page.reload();
    await eventually(() => page.getByPlaceholder('Token').first().isVisible()).toBe(true);
    expect(await page.getByPlaceholder('Token').first().inputValue()).toBe('');
    await page.close();
  });
});
