import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { giveFileDirectly, readyDocument } from '../signers/setup.ts';
import { body, pathId, queryString } from './arbitraries.ts';
import { counts, expectPage, idFrom, limitOf, probe, rowOf, settings, Tally } from './harness.ts';
import { coherentField, FIELD_REQUIRED, fieldFields } from './shapes.ts';

// RUNS (1,000) generated requests per endpoint: POST and GET /documents/{id}/fields,
// PATCH /documents/{id}/fields/{fieldId}.

let t: TestApp;
/** Documents that are not editable drafts of the caller: sent, deleted, another organization's. */
let otherDocuments: string[];
/** Drafts of the caller: one without a file (any page), one with a 2-page file (page ≤ 2). The first is replaced when full. */
let drafts: string[];
/** [documentId, fieldId] pairs that exist. */
let pairs: [string, string][];

const fieldIds = async (documentId: string, key?: string) =>
  (
    (await t.request('GET', `/api/v1/documents/${documentId}/fields?limit=100`, { key })).body
      .data as { id: string }[]
  ).map((f) => f.id);
const fieldCount = async (documentId: string) =>
  Number(
    (
      await t.database.handle.db
        .selectFrom('fields')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('document_id', '=', documentId)
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  t = await buildTestApp();
  const other = await t.newOrg('Other');
  const withSigners = {
    signers: [signer(0), signer(1)],
    fields: [field(), field({ assignedTo: 1, type: 'dropdown', options: ['a', 'b'] })],
  };
  drafts = [
    await createDocument(t, { name: 'Draft', ...withSigners }),
    await createDocument(t, { name: 'Two pages', ...withSigners }),
  ];
  await giveFileDirectly(t, drafts[1]!, 2);
  const pending = await readyDocument(t, { signers: 1 });
  expect((await t.request('POST', `/api/v1/documents/${pending}/send`)).status).toBe(200);
  const deleted = await createDocument(t, { name: 'Deleted', ...withSigners });
  const deletedFields = await fieldIds(deleted);
  expect((await t.request('DELETE', `/api/v1/documents/${deleted}`)).status).toBe(204);
  const theirs = await createDocument(t, { name: 'Theirs', ...withSigners }, other.key);
  otherDocuments = [pending, deleted, theirs];
  pairs = [
    ...(await fieldIds(drafts[0]!)).map((f): [string, string] => [drafts[0]!, f]),
    ...(await fieldIds(drafts[1]!)).map((f): [string, string] => [drafts[1]!, f]),
    ...(await fieldIds(pending)).map((f): [string, string] => [pending, f]),
    [deleted, deletedFields[0]!],
    [theirs, (await fieldIds(theirs, other.key))[0]!],
  ];
}, 30_000);
afterAll(async () => t.close());

const documentTarget = () =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant('@draft0') },
    { weight: 1, arbitrary: fc.constant('@draft1') },
    { weight: 2, arbitrary: pathId(otherDocuments) },
  );
const resolve = (target: string) =>
  target === '@draft0' ? drafts[0]! : target === '@draft1' ? drafts[1]! : target;

describe('property: field endpoints never fail with 5xx and refuse cleanly', () => {
  it('POST /api/v1/documents/{id}/fields', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        documentTarget(),
        body(fieldFields, FIELD_REQUIRED, coherentField),
        async (target, payload) => {
          for (const i of [0, 1]) {
            if ((await fieldCount(drafts[i]!)) >= 500) {
              drafts[i] = await createDocument(t, { name: 'Next draft', signers: [signer(0)] });
              if (i === 1) await giveFileDirectly(t, drafts[1]!, 2);
            }
          }
          const id = resolve(target);
          const before = await counts(t);
          const doc = await rowOf(t, 'documents', idFrom(id));
          const res = await probe(t, 'POST', `/api/v1/documents/${id}/fields`, payload);
          tally.add(res.status);
          const after = await counts(t);
          if (res.status === 201) {
            expect(after.fields).toBe(before.fields + 1);
            const f = res.json.data;
            expect(f.x + f.width).toBeLessThanOrEqual(100);
            expect(f.y + f.height).toBeLessThanOrEqual(100);
            if (id === drafts[1]) expect(f.page).toBeLessThanOrEqual(2);
          } else {
            expect(after).toEqual(before);
            expect(await rowOf(t, 'documents', idFrom(id))).toEqual(doc);
          }
        },
      ),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('PATCH /api/v1/documents/{id}/fields/{fieldId}', async () => {
    const tally = new Tally();
    const known = fc
      .constantFrom(...pairs)
      .map(([d, f]) => [encodeURIComponent(d), encodeURIComponent(f)] as const);
    const editable = fc
      .constantFrom(...pairs.filter(([d]) => !otherDocuments.includes(d)))
      .map(([d, x]) => [encodeURIComponent(d), encodeURIComponent(x)] as const);
    const target = fc.oneof(
      { weight: 6, arbitrary: editable },
      { weight: 3, arbitrary: known },
      { weight: 1, arbitrary: fc.tuple(known, known).map(([a, b]) => [a[0], b[1]] as const) },
      {
        weight: 1,
        arbitrary: fc.tuple(pathId(otherDocuments), known).map(([d, f]) => [d, f[1]] as const),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(known, pathId(pairs.map((p) => p[1])))
          .map(([d, f]) => [d[0], f] as const),
      },
    );
    await fc.assert(
      fc.asyncProperty(target, body(fieldFields), async ([documentId, fieldId], payload) => {
        const before = await counts(t);
        const row = await rowOf(t, 'fields', idFrom(fieldId));
        const doc = await rowOf(t, 'documents', idFrom(documentId));
        const res = await probe(
          t,
          'PATCH',
          `/api/v1/documents/${documentId}/fields/${fieldId}`,
          payload,
        );
        tally.add(res.status);
        const after = await counts(t);
        if (res.status >= 400) {
          expect(after).toEqual(before);
          expect(await rowOf(t, 'fields', idFrom(fieldId))).toEqual(row);
          expect(await rowOf(t, 'documents', idFrom(documentId))).toEqual(doc);
        } else {
          expect(res.status).toBe(200);
          expect(after.fields).toBe(before.fields);
          const f = res.json.data;
          expect(f.id).toBe(idFrom(fieldId));
          expect(f.x + f.width).toBeLessThanOrEqual(100);
          expect(f.y + f.height).toBeLessThanOrEqual(100);
          expect(f.options === null || ['dropdown', 'radio'].includes(f.type)).toBe(true);
        }
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('GET /api/v1/documents/{id}/fields', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(documentTarget(), queryString({ list: 'fields' }), async (target, qs) => {
        const before = await counts(t);
        const res = await probe(t, 'GET', `/api/v1/documents/${resolve(target)}/fields?${qs}`);
        tally.add(res.status);
        if (res.status === 200) expectPage(res, limitOf(qs));
        expect(await counts(t)).toEqual(before);
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);
});
