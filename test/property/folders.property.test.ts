import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { body, mostly, pathId, queryString } from './arbitraries.ts';
import { counts, expectPage, idFrom, limitOf, probe, rowOf, settings, Tally } from './harness.ts';
import { folderFields } from './shapes.ts';

// RUNS (1,000) generated requests per endpoint: POST /folders, PATCH /folders/{id}, GET /folders.

let t: TestApp;
/** A small tree of the caller (root → child → grandchild, and a second root) and another organization's folder. */
let folderIds: string[];

beforeAll(async () => {
  t = await buildTestApp();
  const other = await t.newOrg('Other');
  const folder = async (name: string, parentId?: string, key?: string) =>
    (await t.request('POST', '/api/v1/folders', { body: { name, parentId }, key })).body.data
      .id as string;
  const root = await folder('Root');
  const child = await folder('Child', root);
  const grandchild = await folder('Grandchild', child);
  folderIds = [
    root,
    child,
    grandchild,
    await folder('Second root'),
    await folder('Theirs', undefined, other.key),
  ];
}, 30_000);
afterAll(async () => t.close());

/** Walks up from `id` and fails if it comes back to a folder it has seen: the tree must stay a tree. */
async function expectNoCycle(id: string): Promise<void> {
  const seen = new Set<string>();
  let current: string | null = id;
  while (current) {
    expect(seen.has(current), `cycle through ${current}`).toBe(false);
    seen.add(current);
    const row = (await rowOf(t, 'folders', current)) as { parent_id: string | null } | undefined;
    current = row?.parent_id ?? null;
  }
}

describe('property: folder endpoints never fail with 5xx and refuse cleanly', () => {
  it('POST /api/v1/folders', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(body(folderFields(folderIds), ['name']), async (payload) => {
        const before = await counts(t);
        const res = await probe(t, 'POST', '/api/v1/folders', payload);
        tally.add(res.status);
        const after = await counts(t);
        if (res.status === 201) {
          expect(after.folders).toBe(before.folders + 1);
          expect(res.json.data.id).toMatch(/^fol_/);
        } else {
          expect(after).toEqual(before);
        }
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('PATCH /api/v1/folders/{id}', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(pathId(folderIds), body(folderFields(folderIds)), async (id, payload) => {
        const before = await counts(t);
        const row = await rowOf(t, 'folders', idFrom(id));
        const res = await probe(t, 'PATCH', `/api/v1/folders/${id}`, payload);
        tally.add(res.status);
        const after = await counts(t);
        if (res.status >= 400) {
          expect(after).toEqual(before);
          expect(await rowOf(t, 'folders', idFrom(id))).toEqual(row);
        } else {
          expect(res.status).toBe(200);
          expect(after).toEqual(before);
          expect(res.json.data.id).toBe(idFrom(id));
          await expectNoCycle(idFrom(id));
        }
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);

  it('GET /api/v1/folders', async () => {
    const tally = new Tally();
    const query = queryString({
      list: 'folders',
      extra: { parentId: mostly(fc.constantFrom(...folderIds)) },
    });
    await fc.assert(
      fc.asyncProperty(query, async (qs) => {
        const before = await counts(t);
        const res = await probe(t, 'GET', `/api/v1/folders?${qs}`);
        tally.add(res.status);
        if (res.status === 200) expectPage(res, limitOf(qs));
        expect(await counts(t)).toEqual(before);
      }),
      settings,
    );
    tally.expectMix();
  }, 120_000);
});
