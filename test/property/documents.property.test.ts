import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import { readyDocument } from '../signers/setup.ts';
import { body, mostly, nastyString, pathId, queryString } from './arbitraries.ts';
import { counts, expectPage, idFrom, limitOf, probe, rowOf, settings, Tally } from './harness.ts';
import { documentFields, fieldInput, signerInput } from './shapes.ts';

// RUNS (1,000) generated requests per endpoint: POST /documents, PATCH /documents/{id},
// GET /documents and GET /documents/{id}/audit.

let t: TestApp;
let folderIds: string[];
let documentIds: string[];

beforeAll(async () => {
  t = await buildTestApp();
  const other = await t.newOrg('Other');
  const folder = async (name: string, key?: string) =>
    (await t.request('POST', '/api/v1/folders', { body: { name }, key })).body.data.id as string;
  folderIds = [await folder('Contracts'), await folder('HR'), await folder('Theirs', other.key)];
  const drafts = [
    await createDocument(t, { name: 'Draft A' }),
    await createDocument(t, { name: 'Draft B', folderId: folderIds[0] }),
  ];
  const pending = await readyDocument(t, { signers: 1 });
  expect((await t.request('POST', `/api/v1/documents/${pending}/send`)).status).toBe(200);
  const deleted = await createDocument(t, { name: 'Deleted' });
  expect((await t.request('DELETE', `/api/v1/documents/${deleted}`)).status).toBe(204);
  const theirs = await createDocument(t, { name: 'Theirs' }, other.key);
  documentIds = [...drafts, pending, deleted, theirs];
}, 30_000);
afterAll(async () => t.close());

describe('property: documents endpoints never fail with 5xx and refuse cleanly', () => {
  it('POST /api/v1/documents', async () => {
    const tally = new Tally();
    const fields = {
      ...documentFields(folderIds),
      signers: fc.array(signerInput, { maxLength: 2 }),
      fields: fc.array(fieldInput, { maxLength: 2 }),
    };
    await fc.assert(
      fc.asyncProperty(body(fields, ['name']), async (payload) => {
        const before = await counts(t);
        const res = await probe(t, 'POST', '/api/v1/documents', payload);
        tally.add(res.status);
        const after = await counts(t);
        if (res.status === 201) {
          expect(after.documents).toBe(before.documents + 1);
          expect(res.json.data.status).toBe('draft');
        } else {
          expect(after, payload.payload?.slice(0, 200)).toEqual(before);
        }
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('PATCH /api/v1/documents/{id}', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        pathId(documentIds),
        body(documentFields(folderIds)),
        async (id, payload) => {
          const before = await counts(t);
          const row = await rowOf(t, 'documents', idFrom(id));
          const res = await probe(t, 'PATCH', `/api/v1/documents/${id}`, payload);
          tally.add(res.status);
          const after = await counts(t);
          if (res.status >= 400) {
            expect(after).toEqual(before);
            expect(await rowOf(t, 'documents', idFrom(id))).toEqual(row);
          } else {
            expect(res.status).toBe(200);
            expect(after.documents).toBe(before.documents);
            expect(res.json.data.id).toBe(idFrom(id));
          }
        },
      ),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('GET /api/v1/documents', async () => {
    const tally = new Tally();
    const query = queryString({
      list: 'documents',
      extra: {
        status: mostly(
          fc.constantFrom(
            'draft',
            'pending',
            'action_required',
            'completed',
            'cancelled',
            'expired',
            'declined',
            'DRAFT',
          ),
        ),
        search: nastyString,
        folderId: mostly(fc.constantFrom(...folderIds)),
      },
    });
    await fc.assert(
      fc.asyncProperty(query, async (qs) => {
        const before = await counts(t);
        const res = await probe(t, 'GET', `/api/v1/documents?${qs}`);
        tally.add(res.status);
        if (res.status === 200) expectPage(res, limitOf(qs));
        expect(await counts(t)).toEqual(before);
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('GET /api/v1/documents/{id}/audit', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(pathId(documentIds), queryString({ list: 'audit' }), async (id, qs) => {
        const before = await counts(t);
        const res = await probe(t, 'GET', `/api/v1/documents/${id}/audit?${qs}`);
        tally.add(res.status);
        if (res.status === 200) expectPage(res, limitOf(qs));
        expect(await counts(t)).toEqual(before);
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);
});
