import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('what a newcomer meets first', () => {
  it('GET / in a browser leads to the API reference; a program is told where things are', async () => {
    const browser = await t.request('GET', '/', {
      key: null,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/docs');
    const program = await t.request('GET', '/', { key: null });
    expect(program.status).toBe(200);
    expect(program.body).toEqual({
      name: 'Signet',
      docs: '/docs',
      openapi: '/openapi.json',
      health: '/healthz',
    });
  });

  it('campaign responses carry the public url to share (create, get, list, patch)', async () => {
    const tpl = await createTemplate(t, {
      name: 'Form',
      roles: [{ name: 'Signer' }],
      fields: [field({ type: 'signature', label: 'Signature' })],
    });
    await giveTemplateFile(t, tpl);
    const created = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId: tpl, name: 'Spring signup' },
    });
    expect(created.status).toBe(201);
    const url = `http://localhost:3000/c/${created.body.data.slug}`;
    expect(created.body.data.url).toBe(url);
    expect(
      (await t.request('GET', `/api/v1/campaigns/${created.body.data.id}`)).body.data.url,
    ).toBe(url);
    expect((await t.request('GET', '/api/v1/campaigns')).body.data[0].url).toBe(url);
    expect(
      (
        await t.request('PATCH', `/api/v1/campaigns/${created.body.data.id}`, {
          body: { name: 'Spring signup 2' },
        })
      ).body.data.url,
    ).toBe(url);
    const page = await t.request('GET', new URL(url).pathname, { key: null });
    expect(page.status).toBe(200);
  });

  it('validation messages speak plainly instead of quoting regular expressions', async () => {
    const detail = async (body: unknown, path = '/api/v1/documents', method = 'POST') => {
      const res = await t.request(method, path, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      return res.body.error;
    };
    expect((await detail({ name: '   ' })).details).toContainEqual({
      path: 'body.name',
      message: 'must not be blank',
    });
    const when = await detail({ name: 'Deal', expiresAt: '2026-12-01T12:00:00' });
    expect(when.message).toBe(
      'body.expiresAt must be a date-time with a time zone, e.g. 2026-12-01T12:00:00Z',
    );
    expect((await detail({ name: 'x'.repeat(201) })).details).toContainEqual({
      path: 'body.name',
      message: 'must be at most 200 characters',
    });
    expect(
      (await detail({ brandColor: 'teal' }, '/api/v1/organization', 'PATCH')).details,
    ).toContainEqual({ path: 'body.brandColor', message: 'must be a hex colour such as #0F766E' });
    expect((await detail({}, '/api/v1/organization', 'PATCH')).message).toBe(
      'body must set at least one field',
    );
    for (const error of [when]) expect(JSON.stringify(error)).not.toMatch(/must match|\^|\$"/);
  });
});
