import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/documents', () => {
  it('creates a draft with the exact create-response fields', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'NDA', message: 'Please sign' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'createdAt',
        'expiresAt',
        'folderId',
        'id',
        'message',
        'name',
        'signingType',
        'status',
        'updatedAt',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({
      name: 'NDA',
      status: 'draft',
      signingType: 'sequential',
      message: 'Please sign',
      expiresAt: null,
      folderId: null,
    });
    expect(res.body.data.id).toMatch(/^doc_/);
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it.each([
    ['', 400],
    ['a', 201],
    ['x'.repeat(200), 201],
    ['x'.repeat(201), 400],
  ])('name of %#: length boundary gives %i', async (name, status) => {
    const res = await t.request('POST', '/api/v1/documents', { body: { name } });
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details[0].path).toBe('body.name');
    }
  });

  it('message 5000 is accepted, 5001 refused', async () => {
    expect(
      (
        await t.request('POST', '/api/v1/documents', {
          body: { name: 'm', message: 'm'.repeat(5000) },
        })
      ).status,
    ).toBe(201);
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'm', message: 'm'.repeat(5001) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.message');
  });

  it('expiresAt must be in the future', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const bad = await t.request('POST', '/api/v1/documents', {
      body: { name: 'e', expiresAt: past },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      { path: 'body.expiresAt', message: 'must be in the future' },
    ]);
    const ok = await t.request('POST', '/api/v1/documents', {
      body: { name: 'e', expiresAt: future },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.expiresAt).toBe(future);
    expect(
      (await t.request('POST', '/api/v1/documents', { body: { name: 'e', expiresAt: 'tomorrow' } }))
        .status,
    ).toBe(400);
  });

  it('refuses unknown and read-only fields, and non-JSON bodies', async () => {
    const unknown = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', status: 'completed' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toEqual({
      path: 'body.status',
      message: 'is not a known field',
    });
    const broken = await t.request('POST', '/api/v1/documents', {
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('validation_error');
    const big = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', message: 'y'.repeat(1_100_000) },
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });

  it('creates signers and fields inline, visible in the detail', async () => {
    const id = await createDocument(t, {
      signingType: 'parallel',
      signers: [signer(1), signer(2)],
      fields: [
        field(),
        field({ assignedTo: 1, type: 'dropdown', options: ['a', 'b'] }),
        field({ type: 'date' }),
      ],
    });
    const res = await t.request('GET', `/api/v1/documents/${id}`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d._count).toEqual({ signers: 2, fields: 3, attachments: 0 });
    expect(d.signers.map((s: any) => [s.order, s.role, s.status])).toEqual([
      [0, 'signer', 'pending'],
      [1, 'signer', 'pending'],
    ]);
    expect(d.fields[1]).toMatchObject({
      type: 'dropdown',
      options: ['a', 'b'],
      assignedTo: 1,
      required: true,
      readOnly: false,
    });
    expect(d).toMatchObject({
      documentHash: '',
      signedFileHash: '',
      message: '',
      emailSubject: null,
      requireKyc: false,
      attachments: [],
    });
  });
});

describe('GET /api/v1/documents', () => {
  it('filters by status, refuses action_required and unknown filters, searches case-insensitively and literally', async () => {
    await createDocument(t, { name: 'Quarterly REPORT 100%' });
    await createDocument(t, { name: 'report_2026' });
    const search = await t.request('GET', '/api/v1/documents?search=report');
    expect(search.status).toBe(200);
    expect(search.body.data.map((d: any) => d.name).sort()).toEqual([
      'Quarterly REPORT 100%',
      'report_2026',
    ]);
    const pct = await t.request('GET', `/api/v1/documents?search=${encodeURIComponent('0%')}`);
    expect(pct.body.data.map((d: any) => d.name)).toEqual(['Quarterly REPORT 100%']);
    const underscore = await t.request('GET', '/api/v1/documents?search=t_2');
    expect(underscore.body.data.map((d: any) => d.name)).toEqual(['report_2026']);
    expect((await t.request('GET', '/api/v1/documents?status=action_required')).status).toBe(400);
    expect((await t.request('GET', '/api/v1/documents?status=nope')).status).toBe(400);
    const drafts = await t.request('GET', '/api/v1/documents?status=draft&limit=100');
    expect(drafts.body.data.every((d: any) => d.status === 'draft')).toBe(true);
    expect((await t.request('GET', '/api/v1/documents?status=completed')).body.data).toEqual([]);
  });

  it.each([
    ['0', 400],
    ['1', 200],
    ['100', 200],
    ['101', 400],
    ['1.5', 400],
    ['abc', 400],
  ])('limit=%s gives %i', async (limit, status) => {
    expect((await t.request('GET', `/api/v1/documents?limit=${limit}`)).status).toBe(status);
  });

  it('refuses a cursor it did not issue', async () => {
    const res = await t.request('GET', '/api/v1/documents?cursor=garbage');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });

  it('refuses a forged cursor of the right shape whose position holds a NUL', async () => {
    const forged = Buffer.from(
      JSON.stringify({ l: 'documents', k: 'a\u0000b', i: 'doc_x' }),
    ).toString('base64url');
    const res = await t.request('GET', `/api/v1/documents?cursor=${forged}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
  });
});
