import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
  visible,
} from '../helpers/browser.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { createCampaign } from '../campaigns/setup.ts';
import {
  contrast,
  focusedControl,
  injectAxe,
  tabThrough,
  unnamedControls,
  EVERY_TYPE,
} from './a11y-helpers.ts';
import { getDocument, linkFor, openSigningPage, sendDocument, startServer } from './setup.ts';

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/*
 * A signer who uses only the keyboard signs with a typed signature: Tab reaches every control,
 * each with a name a screen reader reads and a visible focus ring; the signature dialog opens
 * with Enter, and Enter and Space adopt and finish. And the organization's brandColor never
 * makes text unreadable: the buttons' ink is black or white, whichever contrasts more.
 */
let t: TestApp;
let browser: TestBrowser;

const fields = [
  { type: 'text', page: 1, x: 10, y: 20, width: 40, height: 3, label: 'Job title', assignedTo: 0 },
  { type: 'signature', page: 1, x: 10, y: 60, width: 35, height: 7, assignedTo: 0 },
];

async function signingPage(
  width: number,
  more: object[] = [],
): Promise<{ page: Page; id: string }> {
  const doc = await sendDocument(t, {
    signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
    fields: [...fields, ...more],
  });
  const page = await browser.newPage({ width, height: 800 });
  await openSigningPage(page, await linkFor(t, doc.id, doc.signers[0]!.id));
  await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
  return { page, id: doc.id };
}

/** Presses Tab until `done` holds for the focused control (at most `max` times), checking each. */
async function tabUntil(
  page: Page,
  done: (c: { name: string; tag: string; text: string }) => boolean,
  seen: string[],
  problems: string[],
  max = 40,
): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const c = await focusedControl(page);
    seen.push(`${c.tag} "${c.name}"`);
    if (!c.name) problems.push(`${c.tag}.${c.className}: no accessible name`);
    if (!c.ring) problems.push(`${c.tag} "${c.name}": no visible focus indicator`);
    if (done(c)) return;
  }
  throw new Error(`not reached after ${max} Tabs: ${seen.join(', ')}`);
}

describe.skipIf(!hasChromium)('keyboard only, names and focus, brand contrast', () => {
  beforeAll(async () => {
    ({ t } = await startServer());
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each([375, 1280])(
    'signs with the keyboard alone, typed signature, at %i px',
    async (width) => {
      const { page, id } = await signingPage(width);
      await injectAxe(page);
      expect(await unnamedControls(page)).toEqual([]);
      const seen: string[] = [];
      const problems: string[] = [];

      // From the top of the page, as a keyboard user arrives: the skip link comes first.
      await page.evaluate(() => {
        document.body.tabIndex = -1;
        document.body.focus();
        document.body.removeAttribute('tabindex');
      });
      await tabUntil(page, () => true, seen, problems, 1);
      expect(seen[0]).toBe('a "Skip to content"');
      await tabUntil(
        page,
        (c) => c.tag === 'input' && c.name.startsWith('Job title'),
        seen,
        problems,
      );
      await page.keyboard.type('Engineer');
      await tabUntil(page, (c) => c.name.startsWith('Signature'), seen, problems);
      await page.keyboard.press('Enter');
      await visible(page.locator('dialog[open]'));
      await injectAxe(page);
      expect(await unnamedControls(page, 'dialog[open]')).toEqual([]);
      // The dialog starts on its tabs: the arrow key picks "Type", Tab reaches the name.
      expect(await focusedControl(page)).toMatchObject({ name: 'Draw', ring: true });
      await page.keyboard.press('ArrowRight');
      expect(await focusedControl(page)).toMatchObject({ name: 'Type', ring: true });
      await tabUntil(page, (c) => c.name === 'Type your full name', seen, problems, 3);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('Ada Lovelace');
      await page.keyboard.press('Enter');
      await visible(page.locator('.field-signature.is-filled'));
      await eventually(() => page.locator('dialog[open]').count()).toBe(0);

      await tabUntil(page, (c) => c.text === 'Finish', seen, problems);
      await page.keyboard.press('Space');
      await visible(page.locator('[data-state]'));
      expect(problems, seen.join(', ')).toEqual([]);
      const doc = await getDocument(t, id);
      expect(doc.signers[0].status).toBe('completed');
      await page.close();
    },
    60_000,
  );

  it.each([
    ['#FFFF00', 'light'],
    ['#000080', 'dark'],
  ])(
    'keeps 4.5:1 text contrast with a %s (%s) brand colour',
    async (brandColor) => {
      const org = await t.request('PATCH', '/api/v1/organization', { body: { brandColor } });
      expect(org.status).toBe(200);
      const { page } = await signingPage(375);
      await eventually(() =>
        page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--brand')),
      ).toBe(brandColor);
      const finish = page.locator('.btn-primary').first();
      const [ink, background] = await finish.evaluate((el) => {
        const s = getComputedStyle(el);
        return [s.color, s.backgroundColor];
      });
      expect(contrast(ink, background), `${ink} on ${background}`).toBeGreaterThanOrEqual(4.5);
      expect(['rgb(0, 0, 0)', 'rgb(255, 255, 255)']).toContain(ink);
      // Text in the brand colour on the light page (the field's "Sign", links, the selected tab).
      await page.locator('.field-sign').click();
      await visible(page.locator('dialog[open]'));
      await page.waitForTimeout(250);
      const tab = await page
        .locator('dialog[open] .tab[aria-selected="true"]')
        .evaluate((el) => getComputedStyle(el).color);
      expect(contrast(tab, '#ffffff'), tab).toBeGreaterThanOrEqual(4.5);
      for (const state of ['dialog', 'document']) {
        const result = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
        expect(
          result.violations.flatMap((v) => v.nodes.map((n) => `${state}: ${n.failureSummary}`)),
        ).toEqual([]);
        await page.keyboard.press('Escape');
        await eventually(() => page.locator('dialog[open]').count()).toBe(0);
      }
      await page.close();
    },
    60_000,
  );

  it('picks readable ink and text colours for every brand colour (a 4096-colour grid)', async () => {
    const { page } = await signingPage(375);
    // A string, so the test runner does not rewrite the browser's own import().
    const palettes: Record<string, string>[] = await page.evaluate(`(async () => {
      const app = document.querySelector('script[type="module"]').src;
      const { brandPalette } = await import(app.replace(/[^/]+$/, 'brand-colors.js'));
      const hex = (n) => (n * 17).toString(16).padStart(2, '0');
      const out = [];
      for (let r = 0; r < 16; r++)
        for (let g = 0; g < 16; g++)
          for (let b = 0; b < 16; b++) out.push(brandPalette('#' + hex(r) + hex(g) + hex(b)));
      return out;
    })()`);
    expect(palettes).toHaveLength(4096);
    const poor = palettes.filter(
      (p) =>
        contrast(p['--brand-ink']!, p['--brand']!) < 4.5 ||
        contrast(p['--brand-ink']!, p['--brand-hover']!) < 4.5 ||
        contrast(p['--brand-text']!, '#f1f3f7') < 4.5 ||
        contrast(p['--brand-text']!, p['--brand-soft']!) < 4.5,
    );
    expect(poor.slice(0, 5)).toEqual([]);
    await page.close();
  });

  it.each(['en', 'ar'])(
    'every control of the signing, campaign and verify pages and dialogs is named and shows its focus: %s',
    async (lang) => {
      const problems: string[] = [];
      const walk = async (page: Page, where: string) => {
        const r = await tabThrough(page);
        expect(r.seen.length, where).toBeGreaterThan(1);
        problems.push(...r.problems.map((p) => `${where}: ${p}`));
      };
      const { page } = await signingPage(375, EVERY_TYPE);
      await page.goto(`${page.url()}?lang=${lang}`);
      await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
      await walk(page, 'signing page');
      await page.locator('.field-sign').first().click();
      await visible(page.locator('dialog[open]'));
      await walk(page, 'signature dialog');
      await page.keyboard.press('Escape');
      await page.locator('.actionbar .btn-ghost').click();
      await visible(page.locator('dialog[open]'));
      await walk(page, 'decline dialog');
      await page.keyboard.press('Escape');

      const c = await createCampaign(t, { name: 'Volunteers' });
      await page.goto(`${new URL(page.url()).origin}/c/${c.slug}?lang=${lang}`);
      await eventually(() => page.locator('.page[data-rendered]').count()).toBeGreaterThan(0);
      await walk(page, 'campaign page');
      await page.goto(`${new URL(page.url()).origin}/verify?lang=${lang}`);
      await walk(page, 'verify page');
      // The language picker, open: its 21 links too.
      await page.locator('.lang-picker summary').focus();
      await page.keyboard.press('Enter');
      await visible(page.locator('.lang-list a').first());
      await walk(page, 'language picker');
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
