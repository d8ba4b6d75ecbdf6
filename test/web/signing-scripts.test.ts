import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
import { linkFor, openSigningPage, pageProblems, sendDocument, startServer } from './setup.ts';

/*
 * Signers named in every script Signet draws sign through the page in Chromium, with the name
 * typed into a field and adopted as a typed signature; the sealed PDF (read by poppler) has each
 * name, and the typed signatures in the faces the page showed them in.
 */

const hasPoppler = spawnSync('pdftotext', ['-v']).status === 0;
if (!hasChromium) console.warn(NO_CHROMIUM_REASON);
if (!hasPoppler)
  console.warn('pdftotext (Debian poppler-utils) not found: skipping the script signing test');

const NAMES = [
  { name: 'Łukasz Dvořák', face: 'Dancing Script' },
  { name: 'Νίκος Παπαδόπουλος', face: 'Noto Sans' },
  { name: 'Анна Иванова', face: 'Noto Sans' },
  { name: 'محمد علي', face: 'Noto Naskh Arabic' },
  { name: 'נועה כהן', face: 'Noto Sans Hebrew' },
  { name: 'अनीता शर्मा', face: 'Noto Sans' },
  { name: 'สมชาย ใจดี', face: 'Noto Sans Thai' },
  { name: '王小明', face: 'Noto Sans SC' },
  { name: 'やまだ 太郎', face: 'Noto Sans JP' },
  { name: '김민준', face: 'Noto Sans KR' },
];

/** A family as Chromium names it, less the style a variable font's default instance gives it. */
const family = (name: string) =>
  name.replace(/\s+(Thin|ExtraLight|Light|Regular|Medium|SemiBold|Bold|ExtraBold|Black)$/, '');

const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}]+|[^\p{Script=Arabic}\p{Script=Hebrew}]+/gu;
const MARKS = /[\u200e\u200f\u202a-\u202e]/g;

let t: TestApp;
let browser: TestBrowser;
let dir: string;

describe.skipIf(!hasChromium || !hasPoppler)(
  'names in every script through the signing page',
  () => {
    beforeAll(async () => {
      ({ t } = await startServer());
      browser = await launchBrowser();
      dir = await mkdtemp(path.join(os.tmpdir(), 'signet-scripts-web-'));
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('signs with each name typed and adopted, and the sealed PDF keeps every one', async () => {
      const doc = await sendDocument(
        t,
        {
          signingType: 'parallel',
          signers: NAMES.map((n, i) => ({ name: n.name, email: `s${i}@example.test` })),
          fields: NAMES.flatMap((_, i) => [
            {
              type: 'text',
              page: 1,
              x: 5,
              y: 5 + i * 9,
              width: 45,
              height: 3,
              label: 'Written name',
              assignedTo: i,
            },
            {
              type: 'signature',
              page: 1,
              x: 55,
              y: 5 + i * 9,
              width: 40,
              height: 7,
              assignedTo: i,
            },
          ]),
        },
        1,
      );
      const problems: string[] = [];
      const pageFaces = new Set<string>();
      for (const [i, { name, face }] of NAMES.entries()) {
        const page = await browser.newPage({ width: 1024, height: 800 });
        page.on('console', (m) => m.type() === 'error' && problems.push(`error: ${m.text()}`));
        page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
        await openSigningPage(page, await linkFor(t, doc.id, doc.signers[i].id));
        await page.getByLabel('Written name (required)').fill(name);
        await page.getByRole('button', { name: 'Signature (required)' }).click();
        await visible(page.getByRole('dialog', { name: 'Add your signature' }));
        await page.getByRole('tab', { name: 'Type' }).click();
        await eventually(() => page.getByLabel('Type your full name').inputValue()).toBe(name);
        // The faces Chromium drew the preview with (its own report, through DevTools).
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('DOM.enable');
        await cdp.send('CSS.enable');
        const { root } = await cdp.send('DOM.getDocument');
        const { nodeId } = await cdp.send('DOM.querySelector', {
          nodeId: root.nodeId,
          selector: '.typed-preview',
        });
        const used = async () =>
          (await cdp.send('CSS.getPlatformFontsForNode', { nodeId })).fonts.map(
            (x) => x.familyName,
          );
        await eventually(async () => (await used()).map(family)).toContain(face);
        for (const name of await used()) pageFaces.add(family(name));
        await cdp.detach();
        await page.getByLabel('Type your full name').press('Enter');
        await eventually(() => textOf(page.locator('.field-signature .typed'))).toBe(name);
        await page.getByRole('button', { name: 'Finish' }).click();
        await visible(page.locator('[data-state="done_all"], [data-state="done"]'));
        await page.close();
      }
      expect(pageProblems(problems)).toEqual([]);

      // Sealing is a job, which the last completion may enqueue just after its page showed done.
      await eventually(async () => {
        await t.drainJobs();
        return (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status;
      }).toBe('completed');
      const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
      const download = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/download`,
        headers: { authorization: `Bearer ${t.key}` },
      });
      const file = path.join(dir, 'signed.pdf');
      await writeFile(file, download.rawPayload);
      const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' })
        .stdout.normalize('NFKC')
        .replace(MARKS, '');
      const joined = text.replace(/\s+/g, '');
      for (const { name } of NAMES)
        for (const word of name.split(' '))
          for (const piece of word.match(RTL) ?? []) expect(joined).toContain(piece);
      const fonts = spawnSync('pdffonts', [file], { encoding: 'utf8' }).stdout;
      for (const face of [
        'DancingScript',
        'NotoNaskhArabic',
        'NotoSansJP',
        'NotoSansSC',
        'NotoSansKR',
        'NotoSansThai',
      ])
        expect(fonts).toContain(face);
    }, 180_000);
  },
);
