/**
 * `npm run bench:first-paint [-- RUNS]`: how soon a signer sees the signing page, in Debian's
 * Chromium, for the page in English and in Arabic and Japanese, against the English page of a
 * commit from before the pages had languages (FIRST_PAINT_BASE, default the parent of the merge
 * that brought them), served from a git worktree of that commit in the same run. Each round
 * loads every variant once, in turns, in a fresh browser context (nothing cached): the median of
 * RUNS rounds (default 20) of first contentful paint and of the first PDF page drawn, and the
 * HTML's size (a page inlines its own locale's words only: test/web/languages.test.ts); then,
 * from one traced load each, how many fonts the page asked the browser for before its first paint
 * (a count that, unlike the times, the machine's load does not move).
 *
 * Goal: no locale more than 10% over the base English page.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { samplePdf } from '../test/helpers/factories.ts';
import { ROOT, type RunningProcess, startSignet } from './harness.ts';

const RUNS = Number(process.argv[2] ?? 20);
const BASE = process.env.FIRST_PAINT_BASE ?? 'da46f41^';
const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789abcdef';

interface Variant {
  name: string;
  url: string;
}

function cli(dir: string, dataDir: string, args: string[]): string {
  return execFileSync(process.execPath, [path.join(dir, 'bin/signet.js'), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, SECRET_KEY, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
}

/** A server from `dir` on its own data directory, with an organization and an API key. */
async function serve(dir: string): Promise<{ proc: RunningProcess; url: string; key: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-first-paint-'));
  cli(dir, dataDir, ['migrate']);
  cli(dir, dataDir, ['org', 'create', '--name', 'Acme', '--admin-email', 'admin@example.test']);
  const key = JSON.parse(cli(dir, dataDir, ['key', 'create', '--scopes', 'all', '--json'])).key;
  const proc = await startSignet({ DATA_DIR: dataDir, SECRET_KEY }, [], dir);
  return { proc, url: proc.url, key };
}

/** A sent one-page document with one signer (in `locale`), and that signer's link. */
async function signingLink(base: string, key: string, locale?: string): Promise<string> {
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { data: any; error?: unknown };
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const doc = await call('POST', '/api/v1/documents', { name: 'Consulting agreement' });
  const upload = await call('POST', `/api/v1/documents/${doc.id}/upload`, {
    filename: 'agreement.pdf',
    contentType: 'application/pdf',
  });
  const put = await fetch(upload.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/pdf' },
    body: new Uint8Array(await samplePdf(2, 'Consulting agreement')),
  });
  if (!put.ok) throw new Error(`upload: ${put.status}`);
  const signer = await call('POST', `/api/v1/documents/${doc.id}/signers`, {
    name: locale === 'ar' ? 'محمد علي' : locale === 'ja' ? '山田 太郎' : 'Ada Lovelace',
    email: 'signer@example.test',
    ...(locale ? { locale } : {}),
  });
  await call('POST', `/api/v1/documents/${doc.id}/fields`, {
    type: 'signature',
    page: 1,
    x: 10,
    y: 80,
    width: 30,
    height: 6,
    assignedTo: 0,
  });
  await call('POST', `/api/v1/documents/${doc.id}/send`);
  return (await call('POST', `/api/v1/documents/${doc.id}/signers/${signer.id}/link`)).url;
}

const FONT_LOOKUPS = new Set([
  'FontDataService::MatchFamilyName',
  'WebSandboxSupportLinux::GetFallbackFontForCharacter',
  'WebSandboxSupportLinux::GetWebFontRenderStyleForStrike',
]);

/** Font requests from the page's renderer to the browser between navigation and first paint. */
async function fontLookupsBeforePaint(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const page = await context.newPage();
  await browser.startTracing(page, {
    categories: ['blink.user_timing', 'loading', 'devtools.timeline', 'fonts', 'mojom'],
  });
  await page.goto(url);
  await page.waitForSelector('canvas', { timeout: 30_000 });
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
  await context.close();
  const events: Array<{ name: string; ts: number; pid: number; tid: number; args?: any }> =
    trace.traceEvents;
  const paint = events.find((e) => e.name === 'firstContentfulPaint');
  const start = events.find(
    (e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL === url,
  );
  if (!paint || !start) return Number.NaN;
  return events.filter(
    (e) =>
      FONT_LOOKUPS.has(e.name) &&
      e.pid === paint.pid &&
      e.tid === paint.tid &&
      e.ts >= start.ts &&
      e.ts <= paint.ts,
  ).length;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-first-paint-base-'));
const procs: RunningProcess[] = [];
try {
  execFileSync('git', ['worktree', 'add', '--detach', tree, BASE], { cwd: ROOT, stdio: 'ignore' });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  const commit = execFileSync('git', ['rev-parse', '--short', BASE], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const base = await serve(tree);
  procs.push(base.proc);
  const current = await serve(ROOT);
  procs.push(current.proc);
  const variants: Variant[] = [
    {
      name: `English, before languages (${commit.trim()})`,
      url: await signingLink(base.url, base.key),
    },
    { name: 'English', url: await signingLink(current.url, current.key, 'en') },
    { name: 'Arabic', url: await signingLink(current.url, current.key, 'ar') },
    { name: 'Japanese', url: await signingLink(current.url, current.key, 'ja') },
  ];
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const times = variants.map(() => ({ paint: [] as number[], drawn: [] as number[] }));
  const htmlBytes: number[] = variants.map(() => 0);
  for (let round = 0; round < RUNS + 1; round++) {
    for (const [i, v] of variants.entries()) {
      const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
      const page = await context.newPage();
      const response = await page.goto(v.url);
      htmlBytes[i] = (await response?.body())?.length ?? 0;
      await page.waitForSelector('canvas', { timeout: 30_000 });
      const t = await page.evaluate(() => ({
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        drawn: performance.now(),
      }));
      // Round 0 warms each server up (first request, code loaded); it is not counted.
      if (round > 0) {
        times[i].paint.push(t.paint);
        times[i].drawn.push(t.drawn);
      }
      await context.close();
    }
  }
  // Then one traced load each: how often the page asked the browser for a font before its first
  // paint (a family by name, a fallback for a character, a face's rendering settings). Each is a
  // round trip to the browser process that holds up layout; unlike times, a count the machine's
  // load does not change.
  const fontLookups: number[] = [];
  for (const v of variants) {
    // A trace now and then lacks the paint event; a second load then counts.
    let n = Number.NaN;
    for (let tries = 0; tries < 3 && Number.isNaN(n); tries++)
      n = await fontLookupsBeforePaint(browser, v.url);
    fontLookups.push(n);
  }
  await browser.close();
  const ref = { paint: median(times[0].paint), drawn: median(times[0].drawn) };
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${RUNS} rounds`,
  );
  console.log(
    'variant                                  | first paint ms (×base) | PDF drawn ms (×base) | HTML bytes | font lookups',
  );
  for (const [i, v] of variants.entries()) {
    const p = median(times[i].paint);
    const d = median(times[i].drawn);
    console.log(
      `${v.name.padEnd(40)} | ${p.toFixed(0).padStart(6)} (${(p / ref.paint).toFixed(2)}×)        | ${d.toFixed(0).padStart(6)} (${(d / ref.drawn).toFixed(2)}×)      | ${String(htmlBytes[i]).padStart(10)} | ${fontLookups[i]}`,
    );
  }
  const worst = Math.max(...times.slice(1).map((t) => median(t.paint) / ref.paint));
  console.log(
    `goal: every locale ≤ 1.10× the base English first paint: ${worst <= 1.1 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)}×)`,
  );
} finally {
  for (const p of procs) await p.stop();
  execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
}
