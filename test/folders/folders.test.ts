import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function folder(
  body: Record<string, unknown> = {},
  key?: string,
): Promise<{ id: string; name: string; parentId: string | null }> {
  const res = await t.request('POST', '/api/v1/folders', {
    body: { name: 'Folder', ...body },
    key,
  });
  if (res.status !== 201) throw new Error(`folder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const move = (id: string, parentId: string | null) =>
  t.request('PATCH', `/api/v1/folders/${id}`, { body: { parentId } });

describe('POST /api/v1/folders', () => {
  it('creates a folder with exactly the folder fields', async () => {
    const res = await t.request('POST', '/api/v1/folders', { body: { name: 'Contracts' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^fol_/),
      name: 'Contracts',
      parentId: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: res.body.data.createdAt,
    });
    const child = await t.request('POST', '/api/v1/folders', {
      body: { name: '2026', parentId: res.body.data.id },
    });
    expect(child.status).toBe(201);
    expect(child.body.data.parentId).toBe(res.body.data.id);
    expect((await t.request('GET', `/api/v1/folders/${child.body.data.id}`)).body.data).toEqual(
      child.body.data,
    );
  });

  it.each([
    ['', 400],
    ['a', 201],
    ['f'.repeat(200), 201],
    ['f'.repeat(201), 400],
    [' \t ', 400],
  ])('name %# at its boundary gives %i', async (name, status) => {
    const res = await t.request('POST', '/api/v1/folders', { body: { name } });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.details[0].path).toBe('body.name');
  });

  it('refuses a missing name, unknown fields and a parent that is not a folder of the organization', async () => {
    expect((await t.request('POST', '/api/v1/folders', { body: {} })).body.error.details).toEqual([
      { path: 'body.name', message: 'is required' },
    ]);
    const unknown = await t.request('POST', '/api/v1/folders', {
      body: { name: 'x', colour: 'red' },
    });
    expect(unknown.body.error.details).toEqual([
      { path: 'body.colour', message: 'is not a known field' },
    ]);
    const missing = await t.request('POST', '/api/v1/folders', {
      body: { name: 'x', parentId: 'fol_unknown' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([
      { path: 'body.parentId', message: 'is not a folder of your organization' },
    ]);
    const other = await t.newOrg('Other');
    const foreign = await folder({ name: 'Theirs' }, other.key);
    const res = await t.request('POST', '/api/v1/folders', {
      body: { name: 'x', parentId: foreign.id },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.parentId');
  });
});

describe('GET /api/v1/folders', () => {
  it('lists newest first, pages with cursors and filters by parentId', async () => {
    const org = await t.newOrg('Lister');
    const root = await folder({ name: 'root' }, org.key);
    const made: string[] = [root.id];
    for (let i = 0; i < 4; i++)
      made.push((await folder({ name: `child ${i}`, parentId: root.id }, org.key)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.request(
        'GET',
        `/api/v1/folders?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { key: org.key },
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((f: { id: string }) => f.id));
      cursor = res.body.meta.nextCursor;
      expect(res.body.meta.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
    const children = await t.request('GET', `/api/v1/folders?parentId=${root.id}`, {
      key: org.key,
    });
    expect(children.body.data.map((f: { id: string }) => f.id)).toEqual(made.slice(1).reverse());
    expect(children.body.meta).toEqual({ count: 4, hasMore: false, nextCursor: null });
    // Another organization sees none of them.
    expect(
      (await t.request('GET', '/api/v1/folders?limit=100')).body.data.map(
        (f: { id: string }) => f.id,
      ),
    ).not.toContain(root.id);
    expect((await t.request('GET', `/api/v1/folders?parentId=${root.id}`)).body.data).toEqual([]);
  });

  it('refuses bad limits, foreign cursors and unknown parameters', async () => {
    expect((await t.request('GET', '/api/v1/folders?limit=0')).status).toBe(400);
    expect((await t.request('GET', '/api/v1/folders?limit=101')).status).toBe(400);
    expect((await t.request('GET', '/api/v1/folders?cursor=abc')).body.error.code).toBe(
      'invalid_cursor',
    );
    expect((await t.request('GET', '/api/v1/folders?name=x')).status).toBe(400);
  });
});

describe('PATCH /api/v1/folders/{id}', () => {
  it('renames and moves, and refuses cycles', async () => {
    const a = await folder({ name: 'A' });
    const b = await folder({ name: 'B', parentId: a.id });
    const c = await folder({ name: 'C', parentId: b.id });
    t.clock.advance(1000);
    const renamed = await t.request('PATCH', `/api/v1/folders/${a.id}`, { body: { name: 'A2' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: a.id, name: 'A2', parentId: null });
    expect(renamed.body.data.updatedAt > renamed.body.data.createdAt).toBe(true);

    const self = await move(a.id, a.id);
    expect(self.status).toBe(400);
    expect(self.body.error.details).toEqual([
      { path: 'body.parentId', message: 'cannot be the folder itself' },
    ]);
    for (const descendant of [b.id, c.id]) {
      const res = await move(a.id, descendant);
      expect(res.status).toBe(400);
      expect(res.body.error.details[0]).toEqual({
        path: 'body.parentId',
        message: 'is a subfolder of this folder; a folder cannot become its own ancestor',
      });
    }
    // Moving down a branch that does not contain the folder is fine, and so is moving to the top.
    expect((await move(c.id, a.id)).body.data.parentId).toBe(a.id);
    expect((await move(b.id, c.id)).body.data.parentId).toBe(c.id);
    expect((await move(a.id, b.id)).status).toBe(400);
    expect((await move(b.id, null)).body.data.parentId).toBeNull();
    expect((await move(a.id, b.id)).body.data.parentId).toBe(b.id);
  });

  it('refuses bad bodies and unknown folders', async () => {
    const a = await folder();
    for (const body of [
      {},
      { name: '' },
      { name: 'n'.repeat(201) },
      { id: 'fol_x' },
      { parentId: 'fol_unknown' },
    ]) {
      expect((await t.request('PATCH', `/api/v1/folders/${a.id}`, { body })).status).toBe(400);
    }
    expect(
      (await t.request('PATCH', `/api/v1/folders/${a.id}`, { body: { name: 'n'.repeat(200) } }))
        .status,
    ).toBe(200);
    expect(
      (await t.request('PATCH', '/api/v1/folders/fol_unknown', { body: { name: 'x' } })).status,
    ).toBe(404);
  });

  it('concurrent opposite moves cannot make a cycle', async () => {
    for (let i = 0; i < 5; i++) {
      const a = await folder({ name: `ca${i}` });
      const b = await folder({ name: `cb${i}` });
      const [ab, ba] = await Promise.all([move(a.id, b.id), move(b.id, a.id)]);
      expect([ab.status, ba.status].sort()).toEqual([200, 400]);
    }
  });
});

describe('DELETE /api/v1/folders/{id}', () => {
  it('deletes an empty folder (204), then 404', async () => {
    const a = await folder();
    const res = await t.request('DELETE', `/api/v1/folders/${a.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request('GET', `/api/v1/folders/${a.id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/folders/${a.id}`)).status).toBe(404);
  });

  it('refuses while documents or subfolders remain, saying which; deleted documents do not count', async () => {
    const parent = await folder({ name: 'parent' });
    const child = await folder({ name: 'child', parentId: parent.id });
    const docId = await createDocument(t, { folderId: parent.id });
    const both = await t.request('DELETE', `/api/v1/folders/${parent.id}`);
    expect(both.status).toBe(409);
    expect(both.body.error).toEqual({
      code: 'invalid_state',
      message: 'The folder still holds 1 document(s) and 1 subfolder(s); move or delete them first',
      details: [{ documents: 1, subfolders: 1 }],
    });
    expect((await t.request('DELETE', `/api/v1/folders/${child.id}`)).status).toBe(204);
    const docs = await t.request('DELETE', `/api/v1/folders/${parent.id}`);
    expect(docs.status).toBe(409);
    expect(docs.body.error.message).toBe(
      'The folder still holds 1 document(s); move or delete them first',
    );
    expect(
      (await t.request('GET', `/api/v1/documents?folderId=${parent.id}`)).body.data.map(
        (d: { id: string }) => d.id,
      ),
    ).toEqual([docId]);
    expect((await t.request('DELETE', `/api/v1/documents/${docId}`)).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/folders/${parent.id}`)).status).toBe(204);

    const sub = await folder({ name: 'p2' });
    await folder({ name: 'c2', parentId: sub.id });
    const subs = await t.request('DELETE', `/api/v1/folders/${sub.id}`);
    expect(subs.body.error.message).toBe(
      'The folder still holds 1 subfolder(s); move or delete them first',
    );
  });
});
