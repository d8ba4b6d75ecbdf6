import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import {
  NO_CHROMIUM_REASON,
  eventually,
  hasChromium,
  launchBrowser,
  textOf,
  type TestBrowser,
} from '../helpers/browser.ts';
import { listen } from '../files/helpers.ts';
import { makePdf, sampleInput, sha256 } from '../pdf/pdf-helpers.ts';

/** The public /verify page in Chromium at 375 px: drop a signed PDF, read the report in plain words. */
if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

let t: TestApp;
let base: string;
let browser: TestBrowser;
let dir: string;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await buildTestApp();
  base = await listen(t);
  browser = await launchBrowser();
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-verify-page-'));
});
afterAll(async () => {
  if (!hasChromium) return;
  await browser.close();
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('GET /verify at 375 px', () => {
  it('checks a signed PDF and a tampered one, fits the screen, and keeps the console clean', async () => {
    const original = await makePdf({ pages: 1, useObjectStreams: false });
    await writeFile(path.join(dir, 'in.pdf'), original);
    const cert = await loadSigningCertificate({
      dataDir: dir,
      signingCertP12: undefined,
      signingCertPassword: undefined,
      generatedCertPassword: 'a-test-password',
    });
    const signedPath = path.join(dir, 'Signed contract.pdf');
    await finalizePdf(
      sampleInput(path.join(dir, 'in.pdf'), sha256(original), []),
      cert,
      signedPath,
    );
    const tamperedPath = path.join(dir, 'tampered.pdf');
    const tampered = await readFile(signedPath);
    tampered[tampered.indexOf('stream\n') + 20] ^= 1;
    await writeFile(tamperedPath, tampered);

    const page = await browser.newPage({ width: 375, height: 812 });
    const res = await page.goto(`${base}/verify`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['cache-control']).toBe('no-store');
    expect(await textOf(page.locator('h1'))).toBe('Verify a signed PDF');

    await page.locator('#verify-file').setInputFiles(signedPath);
    await eventually(() => textOf(page.locator('.verify-summary'))).toBe(
      'The signature is intact and nothing was changed after it.',
    );
    const card = await textOf(page.locator('.verify-card'));
    expect(card).toContain('Signature 1: intact');
    expect(card).toContain('Signed by Signet document signing (self-signed)');
    expect(card).toContain(
      'No trusted timestamp: the signing time Mar 4, 2025, 10:20 AM UTC is the time recorded by the signing service’s own clock',
    );
    expect(card).toContain('PAdES B-B');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    const shot = path.join(dir, 'verify-375.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(5_000);

    await page.locator('#verify-file').setInputFiles(tamperedPath);
    await eventually(() => textOf(page.locator('.verify-summary'))).toBe(
      'At least one signature does not match this file.',
    );
    expect(await textOf(page.locator('.verify-card h2'))).toBe('Signature 1: not valid');
    expect(browser.problems).toEqual([]);
  });
});
