import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/http/auth.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { readyDocument } from '../signers/setup.ts';

/**
 * Authentication, scopes and organization isolation across every documents, signers, fields
 * and folders endpoint. Each endpoint is listed once with the scope the API reference gives it.
 */

interface Ids {
  doc: string;
  /** A document out for signature (so that cancel would succeed if isolation failed). */
  pending: string;
  signer: string;
  field: string;
  folder: string;
}

interface Endpoint {
  method: string;
  path: (ids: Ids) => string;
  scope: string;
  body?: unknown;
  /** Endpoints on a collection have no resource of another organization to reach. */
  collection?: boolean;
  /** Built in parallel by another engineer: checked once the route is registered. */
  optional?: boolean;
}

const d = (ids: Ids) => `/api/v1/documents/${ids.doc}`;
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/api/v1/documents', scope: 'documents.read', collection: true },
  {
    method: 'POST',
    path: () => '/api/v1/documents',
    scope: 'documents.create',
    body: { name: 'x' },
    collection: true,
  },
  { method: 'GET', path: d, scope: 'documents.read' },
  { method: 'PATCH', path: d, scope: 'documents.write', body: { name: 'hijacked' } },
  { method: 'DELETE', path: d, scope: 'documents.delete' },
  {
    method: 'POST',
    path: (i) => `${d(i)}/upload`,
    scope: 'documents.write',
    body: { contentType: 'application/pdf' },
    optional: true,
  },
  { method: 'POST', path: (i) => `${d(i)}/send`, scope: 'documents.send' },
  { method: 'GET', path: (i) => `${d(i)}/download`, scope: 'documents.read', optional: true },
  {
    method: 'POST',
    path: (i) => `/api/v1/documents/${i.pending}/cancel`,
    scope: 'documents.write',
  },
  { method: 'GET', path: (i) => `${d(i)}/audit`, scope: 'documents.read' },
  { method: 'POST', path: (i) => `${d(i)}/signers`, scope: 'documents.write', body: signer(9) },
  { method: 'GET', path: (i) => `${d(i)}/signers`, scope: 'documents.read' },
  {
    method: 'PATCH',
    path: (i) => `${d(i)}/signers/${i.signer}`,
    scope: 'documents.write',
    body: { name: 'hijacked' },
  },
  { method: 'DELETE', path: (i) => `${d(i)}/signers/${i.signer}`, scope: 'documents.write' },
  { method: 'POST', path: (i) => `${d(i)}/fields`, scope: 'documents.write', body: field() },
  { method: 'GET', path: (i) => `${d(i)}/fields`, scope: 'documents.read' },
  {
    method: 'PATCH',
    path: (i) => `${d(i)}/fields/${i.field}`,
    scope: 'documents.write',
    body: { label: 'hijacked' },
  },
  { method: 'DELETE', path: (i) => `${d(i)}/fields/${i.field}`, scope: 'documents.write' },
  {
    method: 'POST',
    path: () => '/api/v1/folders',
    scope: 'folders.write',
    body: { name: 'x' },
    collection: true,
  },
  { method: 'GET', path: () => '/api/v1/folders', scope: 'folders.read', collection: true },
  { method: 'GET', path: (i) => `/api/v1/folders/${i.folder}`, scope: 'folders.read' },
  {
    method: 'PATCH',
    path: (i) => `/api/v1/folders/${i.folder}`,
    scope: 'folders.write',
    body: { name: 'hijacked' },
  },
  { method: 'DELETE', path: (i) => `/api/v1/folders/${i.folder}`, scope: 'folders.write' },
];

let t: TestApp;
let mine: Ids;
let theirs: Ids;
let theirKey: string;
let endpoints: Endpoint[];
const label = (e: Endpoint) =>
  `${e.method} ${e.path({ doc: '{id}', pending: '{id}', signer: '{signerId}', field: '{fieldId}', folder: '{id}' })}`;

/** A draft with a signer, a field and a file, a sent document and a folder, in the organization of `key`. */
async function resources(key: string): Promise<Ids> {
  const folderRes = await t.request('POST', '/api/v1/folders', { body: { name: 'Folder' }, key });
  const doc = await readyDocument(t, {
    key,
    signers: 1,
    body: { folderId: folderRes.body.data.id },
  });
  const pending = await readyDocument(t, { key, signers: 1 });
  expect((await t.request('POST', `/api/v1/documents/${pending}/send`, { key })).status).toBe(200);
  const detail = (await t.request('GET', `/api/v1/documents/${doc}`, { key })).body.data;
  return {
    doc,
    pending,
    signer: detail.signers[0].id,
    field: detail.fields[0].id,
    folder: folderRes.body.data.id,
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  const other = await t.newOrg('Other Org');
  theirKey = other.key;
  mine = await resources(t.key);
  theirs = await resources(theirKey);
  endpoints = [];
  for (const e of ENDPOINTS) {
    if (e.optional) {
      const probe = await t.request(e.method, e.path(mine), { body: e.body, key: null });
      if (probe.status === 404 && String(probe.body?.error?.message).startsWith('No route'))
        continue;
    }
    endpoints.push(e);
  }
});
afterAll(async () => t.close());

describe('OpenAPI document', () => {
  it('documents every endpoint with its operationId, scope errors and security', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    for (const e of endpoints) {
      const path = label(e).split(' ')[1];
      const op = spec.paths[path]?.[e.method.toLowerCase()];
      expect(op, label(e)).toBeDefined();
      expect(op.operationId, label(e)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, label(e)).toBeTruthy();
      expect(Object.keys(op.responses), label(e)).toEqual(
        expect.arrayContaining(['401', '403', '429', '500']),
      );
      if (!e.collection) expect(Object.keys(op.responses), label(e)).toContain('404');
    }
  });
});

describe('authentication (401)', () => {
  it.each([
    ['no Authorization header', null],
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['a Bearer value that is not a key', 'Bearer not-a-key'],
    ['an unknown key', `Bearer sk_${'A'.repeat(43)}`],
  ])('every endpoint refuses %s, with WWW-Authenticate', async (_what, authorization) => {
    for (const e of endpoints) {
      const headers = authorization ? { authorization } : undefined;
      const res = await t.request(e.method, e.path(mine), { body: e.body, key: null, headers });
      expect(res.status, label(e)).toBe(401);
      expect(res.body.error.code, label(e)).toBe('unauthorized');
      expect(String(res.headers['www-authenticate']), label(e)).toMatch(/^Bearer/);
    }
  });

  it('refuses a revoked key', async () => {
    const key = await t.keyWith([...SCOPES]);
    expect((await t.request('GET', '/api/v1/documents', { key })).status).toBe(200);
    await t.database.handle.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('prefix', '=', key.slice(0, 10))
      .execute();
    const res = await t.request('GET', '/api/v1/documents', { key });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBeTruthy();
  });
});

describe('scopes (403 insufficient_scope)', () => {
  it('every endpoint needs its own scope: a key with every other scope is refused', async () => {
    for (const e of endpoints) {
      const key = await t.keyWith(SCOPES.filter((s) => s !== e.scope));
      const res = await t.request(e.method, e.path(mine), { body: e.body, key });
      expect(res.status, label(e)).toBe(403);
      expect(res.body.error.code, label(e)).toBe('insufficient_scope');
      expect(res.body.error.details, label(e)).toEqual([{ requiredScope: e.scope }]);
    }
  });

  it('a key without any documents or folders scope is refused everywhere', async () => {
    const key = await t.keyWith(['webhooks.read', 'campaigns.read']);
    for (const e of endpoints) {
      const res = await t.request(e.method, e.path(mine), { body: e.body, key });
      expect(res.status, label(e)).toBe(403);
      expect(res.body.error.details, label(e)).toEqual([{ requiredScope: e.scope }]);
    }
  });

  it('refused requests changed nothing', async () => {
    const detail = (await t.request('GET', `/api/v1/documents/${mine.doc}`)).body.data;
    expect(detail).toMatchObject({
      name: expect.stringMatching(/^Doc /),
      status: 'draft',
      _count: { signers: 1, fields: 1, attachments: 0 },
    });
    expect((await t.request('GET', `/api/v1/documents/${mine.pending}`)).body.data.status).toBe(
      'pending',
    );
    expect((await t.request('GET', `/api/v1/folders/${mine.folder}`)).body.data.name).toBe(
      'Folder',
    );
  });
});

describe("another organization's resources (404)", () => {
  it('every endpoint on another organization’s document, signer, field or folder is 404', async () => {
    for (const e of endpoints.filter((x) => !x.collection)) {
      const res = await t.request(e.method, e.path(theirs), { body: e.body });
      expect(res.status, label(e)).toBe(404);
      expect(res.body.error.code, label(e)).toBe('not_found');
    }
  });

  it('another organization’s signer or field under my own document is 404', async () => {
    const crossed = { ...mine, signer: theirs.signer, field: theirs.field };
    for (const e of endpoints.filter((x) => /signers\/|fields\//.test(x.path(mine)))) {
      const res = await t.request(e.method, e.path(crossed), { body: e.body });
      expect(res.status, label(e)).toBe(404);
    }
  });

  it('lists never show another organization’s data, and its folder cannot be used', async () => {
    const docs = (await t.request('GET', '/api/v1/documents?limit=100')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(docs).toContain(mine.doc);
    expect(docs).not.toContain(theirs.doc);
    expect(
      (await t.request('GET', `/api/v1/documents?folderId=${theirs.folder}`)).body.data,
    ).toEqual([]);
    const folders = (await t.request('GET', '/api/v1/folders?limit=100')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(folders).toContain(mine.folder);
    expect(folders).not.toContain(theirs.folder);
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', folderId: theirs.folder },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.folderId');
    expect((await createDocument(t, { folderId: mine.folder })).startsWith('doc_')).toBe(true);
  });

  it('the other organization’s resources are untouched', async () => {
    const detail = (await t.request('GET', `/api/v1/documents/${theirs.doc}`, { key: theirKey }))
      .body.data;
    expect(detail.status).toBe('draft');
    expect(detail.name).not.toBe('hijacked');
    expect(detail.signers.map((s: { id: string; name: string }) => [s.id, s.name])).toEqual([
      [theirs.signer, 'Signer 0'],
    ]);
    expect(detail.fields.map((f: { id: string; label: string }) => [f.id, f.label])).toEqual([
      [theirs.field, ''],
    ]);
    expect(
      (await t.request('GET', `/api/v1/documents/${theirs.pending}`, { key: theirKey })).body.data
        .status,
    ).toBe('pending');
    expect(
      (await t.request('GET', `/api/v1/folders/${theirs.folder}`, { key: theirKey })).body.data
        .name,
    ).toBe('Folder');
  });
});
