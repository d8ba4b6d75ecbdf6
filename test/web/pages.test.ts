import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';

/** The URLs of the scripts, styles and icons an HTML page links to. */
const linkedAssets = (html: string) =>
  [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);

describe('GET /sign/{token}', () => {
  it('serves the page shell with a strict policy, never cached, never sent on as a referrer', async () => {
    const res = await t.request('GET', `/sign/${TOKEN}`, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("object-src 'none'");
    const html = res.body as string;
    expect(html).toMatch(/^<!doctype html>\n<html lang="en" dir="ltr">/);
    // No inline script at all: the only script is the external module; the other block is the
    // page's message catalog, JSON a browser never runs.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringMatching(/^<script type="module" src="\/assets\/app\/[0-9a-f]{12}\/app\.js">$/),
      '<script type="application/json" id="signet-messages">',
    ]);
    expect(html).not.toMatch(/<script>|style="| on[a-z]+="/);
    // The client reads its token from the address bar; the page repeats no secret.
    expect(html).not.toContain(TOKEN);
    expect(html).toMatch(/data-pdfjs="\/assets\/pdfjs\/\d+\.\d+\.\d+\/"/);
    expect(html).toContain('<main id="main"');
    expect(html).toContain('aria-live="polite"');
    // The catalog (some 20 KB) comes after everything the page shows, so the browser reaches the
    // page's content, and paints it, without reading through the words first.
    expect(html.indexOf('id="signet-messages"')).toBeGreaterThan(html.indexOf('id="announcer"'));
  });

  it('answers a malformed token with a readable 404 page, without the client', async () => {
    for (const bad of [
      '',
      'short',
      'x'.repeat(101),
      'x'.repeat(5000),
      'has%20space',
      '%3Cscript%3E',
      'a/b/cdefghijklmnop',
    ]) {
      const res = await t.request('GET', `/sign/${bad}`, { key: null });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('This signing link is not valid');
      expect(res.body).not.toContain('<script');
    }
  });

  it('links only to assets Signet serves, with their real types and a long cache', async () => {
    const page = await t.request('GET', `/sign/${TOKEN}`, { key: null });
    const urls = linkedAssets(page.body);
    expect(urls.map((u) => u.split('/').pop())).toEqual(['favicon.svg', 'signing.css', 'app.js']);
    const types: Record<string, string> = {
      svg: 'image/svg+xml',
      css: 'text/css; charset=utf-8',
      js: 'text/javascript; charset=utf-8',
    };
    for (const url of urls) {
      const res = await t.request('GET', url, { key: null });
      expect(res.status, url).toBe(200);
      expect(res.headers['content-type']).toBe(types[url.split('.').pop()!]);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    // Modules the entry point imports, and the font the stylesheet names, resolve under the same version.
    const base = urls[2].replace(/app\.js$/, '');
    const app = await t.request('GET', `${base}app.js`, { key: null });
    for (const [, file] of (app.body as string).matchAll(/from '\.\/([\w-]+\.js)'/g)) {
      expect((await t.request('GET', `${base}${file}`, { key: null })).status, file).toBe(200);
    }
    const css = await t.request('GET', `${base}signing.css`, { key: null });
    const fonts = [...(css.body as string).matchAll(/url\('([^']+)'\)/g)].map((m) => m[1]);
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) {
      const res = await t.request('GET', `${base}${font}`, { key: null });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('font/woff2');
    }
  });

  it('serves pdf.js and its worker from node_modules; an old version is served but not cached', async () => {
    const page = await t.request('GET', `/sign/${TOKEN}`, { key: null });
    const base = /data-pdfjs="([^"]+)"/.exec(page.body)![1];
    for (const file of [
      'pdf.min.mjs',
      'pdf.worker.min.mjs',
      'standard_fonts/LiberationSans-Regular.ttf',
      'cmaps/UniJIS-UTF16-H.bcmap',
      'wasm/openjpeg.wasm',
    ]) {
      const res = await t.request('GET', `${base}${file}`, { key: null });
      expect(res.status, file).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(Number(res.raw.rawPayload.length)).toBeGreaterThan(100);
    }
    expect(
      (await t.request('GET', `${base}pdf.min.mjs`, { key: null })).headers['content-type'],
    ).toBe('text/javascript; charset=utf-8');
    const stale = await t.request('GET', '/assets/pdfjs/0.0.1/pdf.min.mjs', { key: null });
    expect(stale.status).toBe(200);
    expect(stale.headers['cache-control']).toBe('no-cache');
  });

  it('refuses any file that is not on the list: no way out of the asset folders', async () => {
    const page = await t.request('GET', `/sign/${TOKEN}`, { key: null });
    const appBase = linkedAssets(page.body)[0].replace(/favicon\.svg$/, '');
    const pdfjsBase = /data-pdfjs="([^"]+)"/.exec(page.body)![1];
    for (const url of [
      `${appBase}missing.js`,
      `${appBase}..%2F..%2Fpackage.json`,
      `${appBase}../../../package.json`,
      `${pdfjsBase}package.json`,
      `${pdfjsBase}build/pdf.mjs.map`,
      `${pdfjsBase}..%2Fpackage.json`,
      `${pdfjsBase}wasm/LICENSE_QCMS`,
    ]) {
      const res = await t.request('GET', url, { key: null });
      expect(res.status, url).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('keeps the pages out of the API reference', async () => {
    const res = await t.request('GET', '/openapi.json', { key: null });
    const paths = Object.keys(res.body.paths);
    expect(paths.some((p) => p.startsWith('/sign') || p.startsWith('/assets'))).toBe(false);
  });
});
