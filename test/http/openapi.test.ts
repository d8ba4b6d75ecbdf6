import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document describing every API route with its errors', async () => {
    const res = await t.request('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    const ids = new Set<string>();
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, `${where} operationId`).toBeTruthy();
      expect(ids.has(op.operationId), `${where} duplicate operationId`).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, `${where} tags`).toBeGreaterThan(0);
      expect(op.summary, `${where} summary`).toBeTruthy();
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${where} success response`,
      ).toBe(true);
      const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
      if (path.startsWith('/api/v1/') && authenticated) {
        for (const s of ['401', '403', '429', '500'])
          expect(statuses, `${where} documents ${s}`).toContain(s);
      }
    }
    // Every document endpoint of the API is there.
    for (const [method, path] of [
      ['get', '/api/v1/documents'],
      ['post', '/api/v1/documents'],
      ['get', '/api/v1/documents/{id}'],
      ['delete', '/api/v1/documents/{id}'],
      ['post', '/api/v1/documents/{id}/send'],
      ['post', '/api/v1/documents/{id}/cancel'],
      ['get', '/api/v1/documents/{id}/audit'],
    ]) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeTruthy();
    }
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await t.request('GET', '/docs', { key: null });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/docs/');
    const page = await t.request('GET', '/docs/', { key: null });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toContain('text/html');
    const script = await t.request('GET', '/docs/js/scalar.js', { key: null });
    expect(script.status).toBe(200);
    expect(String(script.headers['content-type'])).toContain('javascript');
  });

  it('answers unknown routes with the error body', async () => {
    const res = await t.request('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('GET /healthz and /readyz', () => {
  it('report the process and its dependencies', async () => {
    expect((await t.request('GET', '/healthz', { key: null })).body).toEqual({ status: 'ok' });
    expect((await t.request('GET', '/readyz', { key: null })).body).toEqual({
      status: 'ok',
      database: 'ok',
      storage: 'ok',
      certificate: 'ok',
    });
  });
});
