import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type Page,
  type TestBrowser,
  textOf,
  visible,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { axeViolations, msg } from '../web/a11y-helpers.ts';
import { draftWithFile, startServer } from '../web/setup.ts';

/*
 * The builder page in a real Chromium: fields dragged from the palette onto a page with the mouse
 * (down, move, up), moved, resized by their handle, edited in the settings, added and moved with the
 * keyboard, refused by the API's rules (shown on the page), saved (the API then has exactly them),
 * and `saved` heard by a host page on another origin. Accessible in English and Arabic.
 */

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');

let t: TestApp;
let browser: TestBrowser;
let host: http.Server;
let hostOrigin: string;
const hostPages = new Map<string, string>();

/** A draft with two signers, a text field and a two-page PDF; its builder link. */
async function builderFor(): Promise<{ id: string; url: string }> {
  const id = await draftWithFile(t, {
    signers: [
      { name: 'Ada Lovelace', email: 'ada@example.test' },
      { name: 'Grace Hopper', email: 'grace@example.test' },
    ],
    fields: [{ type: 'text', page: 1, x: 10, y: 20, width: 30, height: 4, label: 'Job title' }],
  });
  const link = await t.request('POST', `/api/v1/documents/${id}/builder-link`);
  expect(link.status).toBe(200);
  return { id, url: link.body.data.url };
}

async function openBuilder(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
}

const fieldsOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}/fields`)).body.data;

const box = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())!;

/** Drags with real mouse events: down at `from`, moves in steps, up at `to`. */
async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
}

describe.skipIf(!hasChromium)('the builder page in Chromium', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
    host = http.createServer((req, res) => {
      const page = hostPages.get(req.url ?? '');
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const org = await t.request('PATCH', '/api/v1/organization', {
      body: { embedOrigins: [hostOrigin] },
    });
    expect(org.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await t?.close();
  });

  it('drags, moves, resizes, edits, uses the keyboard, shows refusals and saves', async () => {
    const { id, url } = await builderFor();
    const page = await browser.newPage({ width: 1280, height: 900 });
    await openBuilder(page, url);

    // Drag "Signature" from the palette onto page 1: the field is centred where it is let go.
    const item = await box(page, '.palette-item[data-type="signature"]');
    const sheet = await box(page, '.page[data-page="1"]');
    const drop = { x: sheet.x + sheet.width * 0.4, y: sheet.y + 300 };
    await drag(page, { x: item.x + item.width / 2, y: item.y + item.height / 2 }, drop);
    const placed = page.locator('.b-field[data-type="signature"]');
    await expect(placed.count()).resolves.toBe(1);
    let b = (await placed.boundingBox())!;
    expect(Math.abs(b.x + b.width / 2 - drop.x)).toBeLessThan(3);
    expect(Math.abs(b.y + b.height / 2 - drop.y)).toBeLessThan(3);

    // Move it by 100 × 50 px, then resize it by its corner by 40 × 20 px.
    await drag(page, { x: b.x + 10, y: b.y + 10 }, { x: b.x + 110, y: b.y + 60 });
    const moved = (await placed.boundingBox())!;
    expect(Math.round(moved.x - b.x)).toBe(100);
    expect(Math.round(moved.y - b.y)).toBe(50);
    const handle = (await placed.locator('.b-handle').boundingBox())!;
    const corner = { x: handle.x + handle.width / 2, y: handle.y + handle.height / 2 };
    await drag(page, corner, { x: corner.x + 40, y: corner.y + 20 });
    b = (await placed.boundingBox())!;
    expect(Math.round(b.width - moved.width)).toBe(40);
    expect(Math.round(b.height - moved.height)).toBe(20);

    // Its settings: a label and the second signer.
    await page.getByLabel('Label', { exact: true }).fill('Client signature');
    await page.getByLabel('Filled in by', { exact: true }).selectOption({ label: 'Grace Hopper' });

    // Keyboard: Enter on "Date" adds one, arrows move it, Shift+arrows resize it.
    await page.locator('.palette-item[data-type="date"]').focus();
    await page.keyboard.press('Enter');
    const date = page.locator('.b-field[data-type="date"]');
    await eventually(() => date.evaluate((el) => el === document.activeElement)).toBe(true);
    const before = await date.evaluate((el) => [el.style.left, el.style.width]);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    for (let i = 0; i < 2; i++) await page.keyboard.press('Shift+ArrowRight');
    const after = await date.evaluate((el) => [el.style.left, el.style.width]);
    expect(Number.parseFloat(after[0]) - Number.parseFloat(before[0])).toBeCloseTo(3, 5);
    expect(Number.parseFloat(after[1]) - Number.parseFloat(before[1])).toBeCloseTo(2, 5);

    // Delete removes the selected field (the text field that was there).
    await page.locator('.b-field[data-type="text"]').click();
    await page.keyboard.press('Delete');
    await expect(page.locator('.b-field[data-type="text"]').count()).resolves.toBe(0);

    // A dropdown without options: the API refuses it, the page says which field and why.
    await page.locator('.palette-item[data-type="dropdown"]').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const problems = page.locator('.builder-problems');
    await eventually(() => textOf(problems)).toContain('Field 3 (Dropdown, page 1): options');
    expect(await page.locator('.b-field.is-invalid').getAttribute('data-type')).toBe('dropdown');
    expect((await fieldsOf(id)).map((f: { type: string }) => f.type)).toEqual(['text']);

    await page.locator('.b-field[data-type="dropdown"]').click();
    await page.getByLabel('Options', { exact: true }).fill('Yes\nNo');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => textOf(page.locator('.actionbar-status'))).toBe('All fields are saved.');

    const saved = await fieldsOf(id);
    expect(saved.map((f: { type: string }) => f.type)).toEqual(['signature', 'date', 'dropdown']);
    const [signature, dateField, dropdown] = saved;
    expect(signature).toMatchObject({ label: 'Client signature', assignedTo: 1, page: 1 });
    expect(dropdown.options).toEqual(['Yes', 'No']);
    // Where the page shows them is where the API has them (percent of the page).
    const shown = await page
      .locator('.b-field[data-type="signature"]')
      .evaluate((el) =>
        ['left', 'top', 'width', 'height'].map((p) => Number.parseFloat(el.style[p as 'left'])),
      );
    expect(signature.x).toBeCloseTo(shown[0], 1);
    expect(signature.y).toBeCloseTo(shown[1], 1);
    expect(signature.width).toBeCloseTo(shown[2], 1);
    expect(signature.height).toBeCloseTo(shown[3], 1);
    expect(dateField.assignedTo).toBe(0);
    const audit = await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`);
    const actions = audit.body.data.map((a: { action: string }) => a.action);
    expect(actions.filter((a: string) => a === 'field.added')).toHaveLength(3);
    expect(actions).toContain('field.removed');
    await page.close();
  }, 60_000);

  it('places and moves a field with a finger (touch pointer events)', async () => {
    const { id, url } = await builderFor();
    const page = await browser.newPage({ width: 1280, height: 900 });
    await openBuilder(page, url);
    const cdp = await page.context().newCDPSession(page);
    /** One finger: down at `from`, moving in steps, up at `to`. */
    const swipe = async (from: { x: number; y: number }, to: { x: number; y: number }) => {
      const at = (p: { x: number; y: number }) => [{ x: p.x, y: p.y, id: 1 }];
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(from) });
      for (let i = 1; i <= 8; i++) {
        const p = { x: from.x + ((to.x - from.x) * i) / 8, y: from.y + ((to.y - from.y) * i) / 8 };
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(p) });
      }
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };
    const item = await box(page, '.palette-item[data-type="checkbox"]');
    const sheet = await box(page, '.page[data-page="1"]');
    const drop = { x: sheet.x + sheet.width / 2, y: sheet.y + 400 };
    await swipe({ x: item.x + item.width / 2, y: item.y + item.height / 2 }, drop);
    const placed = page.locator('.b-field[data-type="checkbox"]');
    await eventually(() => placed.count()).toBe(1);
    const b = (await placed.boundingBox())!;
    expect(Math.abs(b.x + b.width / 2 - drop.x)).toBeLessThan(3);

    await swipe(
      { x: b.x + b.width / 2, y: b.y + b.height / 2 },
      { x: b.x + b.width / 2 - 80, y: b.y + b.height / 2 + 40 },
    );
    const moved = (await placed.boundingBox())!;
    expect(Math.round(moved.x - b.x)).toBe(-80);
    expect(Math.round(moved.y - b.y)).toBe(40);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await eventually(() => textOf(page.locator('.actionbar-status'))).toBe('All fields are saved.');
    expect((await fieldsOf(id)).map((f: { type: string }) => f.type)).toEqual(['text', 'checkbox']);
    await page.close();
  }, 60_000);

  it('posts saved to a host page on another origin that frames it', async () => {
    const { id, url } = await builderFor();
    hostPages.set(
      '/builder',
      `<!doctype html><html><head><script src="${new URL(url).origin}/embed.js"></script></head><body>
<signet-builder url="${url}"></signet-builder>
<script>window.heard = []; for (const type of ['ready', 'saved', 'error'])
  document.addEventListener('signet:' + type, (e) => window.heard.push(e.detail));</script>
</body></html>`,
    );
    const tab = await browser.newPage({ width: 1280, height: 900 });
    await tab.goto(`${hostOrigin}/builder`);
    const heard = () => tab.evaluate(() => (window as unknown as { heard: any[] }).heard);
    const frame = tab.frameLocator('signet-builder iframe');
    await visible(frame.locator('.page[data-rendered]').first());
    expect(await frame.locator('header.topbar').count()).toBe(0);
    await frame.locator('.palette-item[data-type="initials"]').focus();
    await tab.keyboard.press('Enter');
    const save = frame.getByRole('button', { name: 'Save', exact: true });
    await save.click();
    await eventually(async () => (await heard()).map((m: { type: string }) => m.type)).toContain(
      'saved',
    );
    const saved = (await heard()).find((m: { type: string }) => m.type === 'saved');
    expect(saved).toEqual({ source: 'signet', type: 'saved', documentId: id, fieldCount: 2 });
    expect((await fieldsOf(id)).map((f: { type: string }) => f.type)).toEqual(['text', 'initials']);
    await tab.close();
  }, 60_000);

  it.each(['en', 'ar'])(
    'is accessible and finger-sized (%s), with screenshots',
    async (lang) => {
      const { url } = await builderFor();
      const page = await browser.newPage({ width: 1280, height: 900 });
      await openBuilder(page, `${url}?lang=${lang}`);
      expect(await page.locator('html').getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
      expect(await textOf(page.locator('h1'))).toBe(
        msg(lang, 'builder.heading', { name: 'Service Agreement' }),
      );
      await page.locator('.b-field').first().click();
      const found = await axeViolations(page, `builder ${lang}`);
      expect(found).toEqual([]);
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(SHOTS, `builder-${lang}-${width}.png`) });
      }
      // At 375 px every control is a finger's target (44 × 44 CSS px).
      const small = await page.evaluate(() =>
        [
          ...document.querySelectorAll(
            '.builder button, .builder select, .builder input:not([type="checkbox"]), .builder textarea, .b-handle, .actionbar button, .check-row',
          ),
        ]
          .map((el) => ({ el, r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && (r.width < 44 || r.height < 44))
          .map(({ el, r }) => `${el.className || el.tagName} ${r.width}×${r.height}`),
      );
      expect(small).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
