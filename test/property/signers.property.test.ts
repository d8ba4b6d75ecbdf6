import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, signer } from '../helpers/factories.ts';
import { readyDocument } from '../signers/setup.ts';
import { body, pathId, queryString } from './arbitraries.ts';
import { counts, expectPage, idFrom, limitOf, probe, rowOf, settings, Tally } from './harness.ts';
import { signerFields } from './shapes.ts';

// RUNS (1,000) generated requests per endpoint: POST and GET /documents/{id}/signers,
// PATCH /documents/{id}/signers/{signerId}.

let t: TestApp;
/** Documents that are not editable drafts of the caller: sent, deleted, another organization's. */
let otherDocuments: string[];
/** A draft of the caller, replaced by a fresh one when it has its 50 signers. */
let draft: string;
/** [documentId, signerId] pairs that exist: in a draft, in a sent document, in another organization. */
let pairs: [string, string][];

const signerIds = async (documentId: string, key?: string) =>
  (
    (await t.request('GET', `/api/v1/documents/${documentId}/signers?limit=100`, { key })).body
      .data as { id: string }[]
  ).map((s) => s.id);

const signerCount = async (documentId: string) =>
  Number(
    (
      await t.database.handle.db
        .selectFrom('signers')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('document_id', '=', documentId)
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  t = await buildTestApp();
  const other = await t.newOrg('Other');
  draft = await createDocument(t, { name: 'Draft', signers: [signer(0), signer(1), signer(2)] });
  const pending = await readyDocument(t, { signers: 2 });
  expect((await t.request('POST', `/api/v1/documents/${pending}/send`)).status).toBe(200);
  const deleted = await createDocument(t, { name: 'Deleted', signers: [signer(0)] });
  const deletedSigners = await signerIds(deleted);
  expect((await t.request('DELETE', `/api/v1/documents/${deleted}`)).status).toBe(204);
  const theirs = await createDocument(t, { name: 'Theirs', signers: [signer(0)] }, other.key);
  otherDocuments = [pending, deleted, theirs];
  pairs = [
    ...(await signerIds(draft)).map((s): [string, string] => [draft, s]),
    ...(await signerIds(pending)).map((s): [string, string] => [pending, s]),
    [deleted, deletedSigners[0]!],
    [theirs, (await signerIds(theirs, other.key))[0]!],
  ];
}, 30_000);
afterAll(async () => t.close());

/** The document a generated request names: the current draft, another known document, or a made-up id. */
const documentTarget = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('@draft') },
    { weight: 2, arbitrary: pathId(otherDocuments) },
  );

describe('property: signer endpoints never fail with 5xx and refuse cleanly', () => {
  it('POST /api/v1/documents/{id}/signers', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        documentTarget(),
        body(signerFields, ['name', 'email']),
        async (target, payload) => {
          if (target === '@draft' && (await signerCount(draft)) >= 50)
            draft = await createDocument(t, { name: 'Next draft' });
          const id = target === '@draft' ? draft : target;
          const before = await counts(t);
          const doc = await rowOf(t, 'documents', idFrom(id));
          const res = await probe(t, 'POST', `/api/v1/documents/${id}/signers`, payload);
          tally.add(res.status);
          const after = await counts(t);
          if (res.status === 201) {
            expect(after.signers).toBe(before.signers + 1);
            expect(res.json.data.id).toMatch(/^sgn_/);
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

  it('PATCH /api/v1/documents/{id}/signers/{signerId}', async () => {
    const tally = new Tally();
    const known = fc
      .constantFrom(...pairs)
      .map(([d, s]) => [encodeURIComponent(d), encodeURIComponent(s)] as const);
    const editable = fc
      .constantFrom(...pairs.filter(([d]) => !otherDocuments.includes(d)))
      .map(([d, x]) => [encodeURIComponent(d), encodeURIComponent(x)] as const);
    const target = fc.oneof(
      { weight: 6, arbitrary: editable },
      { weight: 3, arbitrary: known },
      // A real signer under another document, or made-up ids on either side.
      { weight: 1, arbitrary: fc.tuple(known, known).map(([a, b]) => [a[0], b[1]] as const) },
      {
        weight: 1,
        arbitrary: fc.tuple(pathId(otherDocuments), known).map(([d, s]) => [d, s[1]] as const),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(known, pathId(pairs.map((p) => p[1])))
          .map(([d, s]) => [d[0], s] as const),
      },
    );
    await fc.assert(
      fc.asyncProperty(target, body(signerFields), async ([documentId, signerId], payload) => {
        const before = await counts(t);
        const row = await rowOf(t, 'signers', idFrom(signerId));
        const doc = await rowOf(t, 'documents', idFrom(documentId));
        const res = await probe(
          t,
          'PATCH',
          `/api/v1/documents/${documentId}/signers/${signerId}`,
          payload,
        );
        tally.add(res.status);
        const after = await counts(t);
        if (res.status >= 400) {
          expect(after).toEqual(before);
          expect(await rowOf(t, 'signers', idFrom(signerId))).toEqual(row);
          expect(await rowOf(t, 'documents', idFrom(documentId))).toEqual(doc);
        } else {
          expect(res.status).toBe(200);
          expect(after.signers).toBe(before.signers);
          expect(res.json.data.id).toBe(idFrom(signerId));
        }
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('GET /api/v1/documents/{id}/signers', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(documentTarget(), queryString({ list: 'signers' }), async (target, qs) => {
        const id = target === '@draft' ? draft : target;
        const before = await counts(t);
        const res = await probe(t, 'GET', `/api/v1/documents/${id}/signers?${qs}`);
        tally.add(res.status);
        if (res.status === 200) expectPage(res, limitOf(qs));
        expect(await counts(t)).toEqual(before);
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);
});
