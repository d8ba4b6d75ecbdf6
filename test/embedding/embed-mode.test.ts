import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../campaigns/setup.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { attachPdf } from '../signing/setup.ts';
import { linkFor } from '../web/setup.ts';

/*
 * README "Embedding", what the server answers: `?embed=1` and `&origin=` on the signing and
 * campaign pages, and the `/embed.js` script with its caching and CORS headers.
 */

let t: TestApp;
let signingPath: string;
let formPath: string;
const SITE = 'https://app.example.com';
beforeAll(async () => {
  t = await buildTestApp();
  const created = await t.request('POST', '/api/v1/documents', {
    body: {
      name: 'Framed',
      signers: [{ name: 'Ada', email: 'ada@example.test', delivery: 'embedded' }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 }],
    },
  });
  const id = created.body.data.id;
  await attachPdf(t, id, 1);
  expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
  const signer = (await t.request('GET', `/api/v1/documents/${id}`)).body.data.signers[0];
  signingPath = new URL(await linkFor(t, id, signer.id)).pathname;
  formPath = `/c/${(await createCampaign(t)).slug}`;
  await t.request('PATCH', '/api/v1/organization', { body: { embedOrigins: [SITE] } });
});
afterAll(async () => t.close());

const page = (path: string) => t.request('GET', path, { key: null });
const bodyTag = (html: string) => /<body[^>]*>/.exec(html)?.[0] ?? '';

describe('?embed=1 and &origin=', () => {
  for (const [name, path] of [
    ['signing page', () => signingPath],
    ['campaign page', () => formPath],
  ] as const) {
    it(`${name}: keeps the header without embed=1, drops it with it`, async () => {
      const plain = await page(path());
      expect(plain.status).toBe(200);
      expect(plain.raw.body).toContain('class="topbar"');
      expect(bodyTag(plain.raw.body)).not.toContain('data-embed');
      const framed = await page(`${path()}?embed=1`);
      expect(framed.status).toBe(200);
      expect(framed.raw.body).not.toContain('class="topbar"');
      expect(framed.raw.body).not.toContain('lang-picker');
      expect(bodyTag(framed.raw.body)).toContain('data-embed="1"');
      expect(bodyTag(framed.raw.body)).not.toContain('data-embed-origin');
    });

    it(`${name}: writes an allowed origin into the page, refuses any other`, async () => {
      const ok = await page(`${path()}?embed=1&origin=${encodeURIComponent(SITE)}`);
      expect(ok.status).toBe(200);
      expect(bodyTag(ok.raw.body)).toContain(`data-embed-origin="${SITE}"`);
      expect(ok.raw.body).toContain('<script type="module"');
      for (const origin of [
        'https://evil.example',
        `${SITE}/path`,
        `${SITE}:444`,
        'http://app.example.com',
        '*',
        'x'.repeat(400),
      ]) {
        const refused = await page(`${path()}?embed=1&origin=${encodeURIComponent(origin)}`);
        expect(refused.status, origin).toBe(403);
        expect(refused.raw.body).toContain('This page cannot be shown here');
        expect(refused.raw.body).not.toContain('<script type="module"');
        expect(refused.raw.body).not.toContain('data-embed-origin');
        // Still framed only by the listed site, which then shows the error.
        expect(String(refused.headers['content-security-policy'])).toContain(
          `frame-ancestors 'self' ${SITE}`,
        );
      }
    });
  }

  it('says it in the page language', async () => {
    const res = await page(`${signingPath}?embed=1&origin=https%3A%2F%2Fevil.example&lang=de`);
    expect(res.status).toBe(403);
    expect(res.raw.body).toContain('Diese Seite kann hier nicht angezeigt werden');
  });
});

describe('GET /embed.js', () => {
  it('is a script any origin may load, cached 5 minutes, revalidated by its ETag', async () => {
    const res = await page('/embed.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.raw.body).toContain("define('signet-signing'");
    expect(res.raw.body).toContain("define('signet-form'");
    expect(res.raw.body).toContain("define('signet-builder'");
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{12}"$/);
    const again = await t.request('GET', '/embed.js', {
      key: null,
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.raw.body).toBe('');
  });

  it('names its versioned URL, which is cached for good; another version is not cached', async () => {
    const res = await page('/embed.js');
    const hash = String(res.headers.etag).slice(1, -1);
    expect(res.headers.link).toBe(`</embed.${hash}.js>; rel="canonical"`);
    const pinned = await page(`/embed.${hash}.js`);
    expect(pinned.status).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pinned.raw.body).toBe(res.raw.body);
    const older = await page('/embed.000000000000.js');
    expect(older.status).toBe(200);
    expect(older.headers['cache-control']).toBe('no-cache');
    expect((await page('/embed.nothex.js')).status).toBe(404);
  });
});
