import fs from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { makePdf, sampleInput, sha256 } from '../pdf/pdf-helpers.ts';

/** The WCAG 2.0 and 2.1 A and AA rules of axe-core. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
export const WIDTHS = [375, 1280] as const;

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs axe on the page as it is, at each width (the same page resized, so its state is kept), and
 * returns its serious and critical violations, each with the state and width it was found in.
 * axe-core goes into the page once per document (what AxeBuilder does on every call), and only
 * violations are gathered: the same rules, a fraction of the time.
 */
export async function axeViolations(page: Page, state: string): Promise<string[]> {
  const found: string[] = [];
  const height = page.viewportSize()?.height ?? 800;
  await injectAxe(page);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(50);
    const violations: AxeViolation[] = await page.evaluate(async (tags) => {
      const axe = (window as any).axe;
      const result = await axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      });
      return result.violations;
    }, TAGS);
    for (const v of violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      const nodes = v.nodes
        .slice(0, 4)
        .map(
          (n) =>
            `    ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 240)}`,
        );
      found.push(`${state} @${width}: ${v.id} (${v.impact}) ${v.help}\n${nodes.join('\n')}`);
    }
  }
  if (found.length) console.warn(found.join('\n'));
  return found;
}

const catalogs = new Map<string, Record<string, string>>();
/** A page message in a locale, placeholders filled, read from the catalog the pages use. */
export function msg(lang: string, key: string, vars: Record<string, string | number> = {}): string {
  let catalog = catalogs.get(lang);
  if (!catalog) {
    const file = new URL(`../../src/i18n/catalogs/${lang}.json`, import.meta.url);
    catalog = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    catalogs.set(lang, catalog);
  }
  const text = catalog[key];
  if (text === undefined) throw new Error(`no message ${key} in ${lang}`);
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? `{${k}}`));
}

/** The newest 6-digit code mailed since `before` mails were sent. */
export function mailedCode(t: TestApp, before: number): string {
  const sent = (t.mailer as { sent: { text?: string; subject: string }[] }).sent.slice(before);
  const code = sent
    .map((m) => /\b(\d{6})\b/.exec(`${m.subject} ${m.text ?? ''}`)?.[1])
    .filter(Boolean)
    .at(-1);
  if (!code) throw new Error(`no code in ${JSON.stringify(sent)}`);
  return code;
}

export const mailCount = (t: TestApp) => (t.mailer as { sent: unknown[] }).sent.length;

/** WCAG 2 relative luminance of `rgb(r, g, b)` or `#rrggbb`. */
export function luminance(colour: string): number {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  const parts = hex
    ? hex.slice(1).map((x) => parseInt(x, 16))
    : (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const [r, g, b] = parts.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The WCAG contrast ratio of two colours. */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
}

/** axe-core's own source, as @axe-core/playwright loads it, for its name computation in the page. */
const axeSource: string = createRequire(import.meta.resolve('@axe-core/playwright'))(
  'axe-core',
).source;

/** Puts axe-core in the page (once per document), to compute accessible names as screen readers do. */
export async function injectAxe(page: Page): Promise<void> {
  if (await page.evaluate(() => 'axe' in window)) return;
  await page.evaluate(axeSource);
}

const CONTROLS =
  'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="tab"], [tabindex]:not([tabindex="-1"])';

/** The visible interactive elements under `scope` without an accessible name. */
export function unnamedControls(page: Page, scope = 'body'): Promise<string[]> {
  return page.evaluate(
    ([selector, root]) => {
      const axe = (window as any).axe;
      axe.setup(document);
      try {
        const out: string[] = [];
        for (const el of document.querySelector(root)?.querySelectorAll(selector) ?? []) {
          // Out of sight (a closed menu's links, a hidden tab panel): not reachable, so not read.
          if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true }))
            continue;
          const name = axe.commons.text.accessibleText(el).trim();
          if (!name) out.push(`${el.tagName.toLowerCase()}.${el.className}`);
        }
        return out;
      } finally {
        axe.teardown();
      }
    },
    [CONTROLS, scope] as const,
  );
}

export interface FocusedControl {
  tag: string;
  className: string;
  name: string;
  text: string;
  /** Whether a focus indicator is drawn: an outline or a box shadow on it or the box that wraps it. */
  ring: boolean;
}

/** The focused element, its accessible name, and whether its focus is visible. */
export function focusedControl(page: Page): Promise<FocusedControl> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const axe = (window as any).axe;
    let name = '';
    if (axe) {
      axe.setup(document);
      name = axe.commons.text.accessibleText(el).trim();
      axe.teardown();
    }
    const drawn = (node: Element | null) => {
      if (!node) return false;
      const s = getComputedStyle(node);
      const outline = s.outlineStyle !== 'none' && Number.parseFloat(s.outlineWidth) > 0;
      return outline || (s.boxShadow !== 'none' && s.boxShadow !== '');
    };
    return {
      tag: el.tagName.toLowerCase(),
      className: String(el.className),
      name,
      text: (el.textContent ?? '').trim(),
      // A date input's calendar button holds the focus inside the input, which then matches
      // neither :focus nor :focus-visible; its ring comes from the same rule.
      ring:
        (el.matches(':focus-visible') || !el.matches(':focus')) &&
        (drawn(el) || drawn(el.closest('label, .field-box'))),
    };
  });
}

/**
 * Tabs through every control from the top of the page (or round an open dialog) until focus
 * comes back to the first one, and names each control without an accessible name or without a
 * visible focus indicator.
 */
export async function tabThrough(
  page: Page,
  max = 80,
): Promise<{ seen: string[]; problems: string[] }> {
  await injectAxe(page);
  await page.evaluate(() => {
    if (document.querySelector('dialog[open]')) return;
    document.body.tabIndex = -1;
    document.body.focus();
    document.body.removeAttribute('tabindex');
  });
  const seen: string[] = [];
  const problems: string[] = [];
  let first = '';
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      el.dataset.tabSeen ??= String(Math.random());
      return el.dataset.tabSeen;
    });
    if (id === first) return { seen, problems };
    if (!first) first = id;
    const c = await focusedControl(page);
    seen.push(`${c.tag} "${c.name}"`);
    if (c.tag === 'body') continue;
    if (!c.name) problems.push(`${c.tag}.${c.className}: no accessible name`);
    if (!c.ring) {
      problems.push(`${c.tag} "${c.name}": no visible focus indicator`);
    }
  }
  return { seen, problems };
}

/** One optional field of each other type, on page 2, so every kind of control is checked. */
export const EVERY_TYPE = [
  ['initials', {}],
  ['name', {}],
  ['email', {}],
  ['date', {}],
  ['number', {}],
  ['dropdown', { options: ['Red', 'Green'] }],
  ['radio', { options: ['Yes', 'No'] }],
  ['file', {}],
].map(([type, extra], i) => ({
  type,
  page: 2,
  x: 10 + (i % 2) * 45,
  y: 10 + Math.floor(i / 2) * 18,
  width: 35,
  height: type === 'radio' ? 8 : 5,
  required: false,
  label: `Optional ${type}`,
  assignedTo: 0,
  ...(extra as object),
}));

/** A PDF signed by Signet's own certificate, written into `dir`, for the verify page. */
export async function aSignedPdf(dir: string): Promise<string> {
  const original = await makePdf({ pages: 1, useObjectStreams: false });
  await writeFile(path.join(dir, 'in.pdf'), original);
  const cert = await loadSigningCertificate({
    dataDir: dir,
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  });
  const out = path.join(dir, 'Signed contract.pdf');
  await finalizePdf(sampleInput(path.join(dir, 'in.pdf'), sha256(original), []), cert, out);
  return out;
}
