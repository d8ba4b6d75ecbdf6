import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../campaigns/setup.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { attachPdf } from '../signing/setup.ts';
import { linkFor } from './setup.ts';

/*
 * Who may frame Signet's pages: the signing and campaign pages only their organization's own
 * `embedOrigins` (and Signet itself), nobody when it lists none; `/verify` and `/docs` nobody,
 * ever. The list is set with PATCH /api/v1/organization, checked, and shown by GET.
 */

let t: TestApp;
let prod: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  prod = await buildTestApp({ env: { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40) } });
});
afterAll(async () => {
  await t.close();
  await prod.close();
});

const frameAncestors = (headers: Record<string, unknown>) =>
  /frame-ancestors ([^;]+)/.exec(String(headers['content-security-policy']))?.[1];

const setOrigins = (app: TestApp, embedOrigins: unknown, key?: string) =>
  app.request('PATCH', '/api/v1/organization', { body: { embedOrigins }, key });

describe('embedOrigins', () => {
  it('is empty by default, set by PATCH, shown by GET, written as origins', async () => {
    expect((await t.request('GET', '/api/v1/organization')).body.data.embedOrigins).toEqual([]);
    const res = await setOrigins(t, [
      'https://App.Example.com',
      'https://app.example.com/',
      'https://portal.example.org:8443',
      'http://localhost:5173',
    ]);
    expect(res.status).toBe(200);
    const want = [
      'https://app.example.com',
      'https://portal.example.org:8443',
      'http://localhost:5173',
    ];
    expect(res.body.data.embedOrigins).toEqual(want);
    expect((await t.request('GET', '/api/v1/organization')).body.data.embedOrigins).toEqual(want);
  });

  it('refuses what is not an origin, more than 10, and plain http outside localhost', async () => {
    const bad = await setOrigins(t, [
      'https://ok.example.com',
      'https://example.com/path',
      'http://example.com',
      'ftp://example.com',
      'https://*.example.com',
      'example.com',
      'https://user:pw@example.com',
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'body.embedOrigins.1',
      'body.embedOrigins.2',
      'body.embedOrigins.3',
      'body.embedOrigins.4',
      'body.embedOrigins.5',
      'body.embedOrigins.6',
    ]);
    const many = Array.from({ length: 11 }, (_, i) => `https://site${i}.example.com`);
    expect((await setOrigins(t, many)).status).toBe(400);
    // Nothing was stored by the refusals.
    expect((await t.request('GET', '/api/v1/organization')).body.data.embedOrigins).not.toContain(
      'https://ok.example.com',
    );
  });

  it('takes http://localhost only outside production', async () => {
    const res = await setOrigins(prod, ['http://localhost:5173']);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].message).toMatch(/https in production/);
    expect((await setOrigins(prod, ['https://app.example.com'])).status).toBe(200);
  });
});

describe('frame-ancestors', () => {
  it("frames an organization's signing and campaign pages only by its embedOrigins; none listed: nobody", async () => {
    const other = await t.newOrg('Other');
    const form = await createCampaign(t, { collectPhone: false }, other.key);
    const created = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Framed',
        signers: [{ name: 'Ada', email: 'ada@example.test' }],
        fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 }],
      },
    });
    const id = created.body.data.id;
    await attachPdf(t, id, 1);
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    const signer = (await t.request('GET', `/api/v1/documents/${id}`)).body.data.signers[0];
    const link = new URL(await linkFor(t, id, signer.id)).pathname;

    await setOrigins(t, ['https://app.example.com', 'https://portal.example.org:8443']);
    const signing = await t.request('GET', link, { key: null });
    expect(signing.status).toBe(200);
    expect(frameAncestors(signing.headers)).toBe(
      "'self' https://app.example.com https://portal.example.org:8443",
    );
    expect(signing.headers['x-frame-options']).toBeUndefined();

    // The other organization lists none: its form may not be framed by anyone.
    const page = await t.request('GET', `/c/${form.slug}`, { key: null });
    expect(page.status).toBe(200);
    expect(frameAncestors(page.headers)).toBe("'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    await setOrigins(t, ['https://forms.other.example'], other.key);
    expect(frameAncestors((await t.request('GET', `/c/${form.slug}`, { key: null })).headers)).toBe(
      "'self' https://forms.other.example",
    );

    await setOrigins(t, []);
    expect(frameAncestors((await t.request('GET', link, { key: null })).headers)).toBe("'none'");
  });

  it('never lets anyone frame /verify, /docs, an unknown link or an unknown form', async () => {
    await setOrigins(t, ['https://app.example.com']);
    for (const url of [
      '/verify',
      '/docs/',
      '/sign/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde',
      '/sign/bad',
      '/c/no-such-form-here',
    ]) {
      const res = await t.request('GET', url, { key: null });
      expect(frameAncestors(res.headers), url).toBe("'none'");
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
  });

  it('gives /docs a strict script policy: its own file and its one start-up script, nothing remote', async () => {
    const res = await t.request('GET', '/docs/', { key: null });
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self' http://localhost:3000");
    expect(String(res.body)).not.toMatch(/https?:\/\/(?!localhost)[^"'\s]*\.js/);
  });
});
