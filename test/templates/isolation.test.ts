import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/http/auth.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate } from './setup.ts';

/** Scopes and organization isolation on every template endpoint. */

interface Ids {
  tpl: string;
  role: string;
  field: string;
}
interface Endpoint {
  method: string;
  path: (ids: Ids) => string;
  scope: string;
  body?: unknown;
  collection?: boolean;
}

const tp = (i: Ids) => `/api/v1/templates/${i.tpl}`;
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/api/v1/templates', scope: 'templates.read', collection: true },
  {
    method: 'POST',
    path: () => '/api/v1/templates',
    scope: 'templates.create',
    body: { name: 'x' },
    collection: true,
  },
  { method: 'GET', path: tp, scope: 'templates.read' },
  { method: 'PATCH', path: tp, scope: 'templates.write', body: { name: 'hijacked' } },
  { method: 'DELETE', path: tp, scope: 'templates.delete' },
  {
    method: 'POST',
    path: (i) => `${tp(i)}/roles`,
    scope: 'templates.write',
    body: { name: 'Extra' },
  },
  { method: 'GET', path: (i) => `${tp(i)}/roles`, scope: 'templates.read' },
  {
    method: 'PATCH',
    path: (i) => `${tp(i)}/roles/${i.role}`,
    scope: 'templates.write',
    body: { name: 'hijacked' },
  },
  { method: 'DELETE', path: (i) => `${tp(i)}/roles/${i.role}`, scope: 'templates.write' },
  { method: 'POST', path: (i) => `${tp(i)}/fields`, scope: 'templates.write', body: field() },
  { method: 'GET', path: (i) => `${tp(i)}/fields`, scope: 'templates.read' },
  {
    method: 'PATCH',
    path: (i) => `${tp(i)}/fields/${i.field}`,
    scope: 'templates.write',
    body: { label: 'hijacked' },
  },
  { method: 'DELETE', path: (i) => `${tp(i)}/fields/${i.field}`, scope: 'templates.write' },
];
const label = (e: Endpoint) =>
  `${e.method} ${e.path({ tpl: '{id}', role: '{roleId}', field: '{fieldId}' })}`;

let t: TestApp;
let mine: Ids;
let theirs: Ids;
let theirKey: string;

async function resources(key: string): Promise<Ids> {
  const tpl = await createTemplate(t, { roles: [{ name: 'Role' }], fields: [field()] }, key);
  const detail = (await t.request('GET', `/api/v1/templates/${tpl}`, { key })).body.data;
  return { tpl, role: detail.roles[0].id, field: detail.fields[0].id };
}

beforeAll(async () => {
  t = await buildTestApp();
  theirKey = (await t.newOrg('Other Org')).key;
  mine = await resources(t.key);
  theirs = await resources(theirKey);
});
afterAll(async () => t.close());

describe('template endpoints', () => {
  it('are documented with operationId, summary and error responses', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    for (const e of ENDPOINTS) {
      const op = spec.paths[label(e).split(' ')[1]]?.[e.method.toLowerCase()];
      expect(op, label(e)).toBeDefined();
      expect(op.operationId, label(e)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, label(e)).toBeTruthy();
      expect(op.tags, label(e)).toEqual(['Templates']);
      expect(Object.keys(op.responses), label(e)).toEqual(
        expect.arrayContaining(['401', '403', '429', '500']),
      );
      if (!e.collection) expect(Object.keys(op.responses), label(e)).toContain('404');
    }
  });

  it('refuse a missing key (401)', async () => {
    for (const e of ENDPOINTS) {
      const res = await t.request(e.method, e.path(mine), { body: e.body, key: null });
      expect(res.status, label(e)).toBe(401);
    }
  });

  it('each need their own scope (403 insufficient_scope)', async () => {
    for (const e of ENDPOINTS) {
      const key = await t.keyWith(SCOPES.filter((s) => s !== e.scope));
      const res = await t.request(e.method, e.path(mine), { body: e.body, key });
      expect(res.status, label(e)).toBe(403);
      expect(res.body.error.details, label(e)).toEqual([{ requiredScope: e.scope }]);
    }
    expect((await t.request('GET', `/api/v1/templates/${mine.tpl}`)).body.data).toMatchObject({
      name: 'Lease',
      _count: { roles: 1, fields: 1 },
    });
  });

  it("answer 404 for another organization's template, role or field", async () => {
    for (const e of ENDPOINTS.filter((x) => !x.collection)) {
      const res = await t.request(e.method, e.path(theirs), { body: e.body });
      expect(res.status, label(e)).toBe(404);
      expect(res.body.error.code, label(e)).toBe('not_found');
      // Their role or field under my own template is not found either.
      if (/roles\/|fields\//.test(e.path(mine))) {
        const crossed = await t.request(
          e.method,
          e.path({ ...mine, role: theirs.role, field: theirs.field }),
          { body: e.body },
        );
        expect(crossed.status, label(e)).toBe(404);
      }
    }
    const list = (await t.request('GET', '/api/v1/templates?limit=100')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(list).toContain(mine.tpl);
    expect(list).not.toContain(theirs.tpl);
    const detail = (await t.request('GET', `/api/v1/templates/${theirs.tpl}`, { key: theirKey }))
      .body.data;
    expect(detail).toMatchObject({ name: 'Lease', _count: { roles: 1, fields: 1 } });
    expect(detail.roles[0].name).toBe('Role');
  });
});
