import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { giveFileDirectly, readyDocument } from '../signers/setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const fieldsUrl = (docId: string) => `/api/v1/documents/${docId}/fields`;
const add = (docId: string, body: unknown) => t.request('POST', fieldsUrl(docId), { body });
const patch = (docId: string, fieldId: string, body: unknown) =>
  t.request('PATCH', `${fieldsUrl(docId)}/${fieldId}`, { body });

async function actions(docId: string): Promise<string[]> {
  return (await t.request('GET', `/api/v1/documents/${docId}/audit?limit=100`)).body.data.map(
    (a: { action: string }) => a.action,
  );
}

let draft: string;
beforeAll(async () => {
  draft = await createDocument(t, { signers: [signer(1)] });
});

describe('POST /api/v1/documents/{id}/fields', () => {
  it('places a field with defaults and audits field.added', async () => {
    const docId = await createDocument(t);
    const res = await add(docId, field({ label: 'Sign here' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^fld_/),
      type: 'signature',
      label: 'Sign here',
      page: 1,
      x: 10,
      y: 10,
      width: 20,
      height: 5,
      required: true,
      readOnly: false,
      assignedTo: 0,
      placeholder: null,
      defaultValue: null,
      options: null,
      value: null,
    });
    expect((await t.request('GET', `/api/v1/documents/${docId}`)).body.data._count.fields).toBe(1);
    expect(await actions(docId)).toEqual(['document.created', 'field.added']);
  });

  it.each([
    [{ x: 80, width: 20 }, 201],
    [{ x: 80, width: 20.01 }, 400],
    [{ x: 0, width: 100 }, 201],
    [{ x: 0.01, width: 100 }, 400],
    [{ y: 95, height: 5 }, 201],
    [{ y: 95, height: 5.01 }, 400],
    [{ x: 100, width: 0.01 }, 400],
    [{ x: -0.01 }, 400],
    [{ width: 0 }, 400],
    [{ height: 100.01, y: 0 }, 400],
  ])('geometry %j gives %i', async (geometry, status) => {
    const res = await add(draft, field(geometry));
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.code).toBe('validation_error');
  });

  it('names the offending side of the box', async () => {
    const res = await add(draft, field({ x: 50, width: 50.01, y: 60, height: 40.5 }));
    expect(res.body.error.details).toEqual([
      { path: 'body.width', message: 'x + width must not exceed 100 (% of the page)' },
      { path: 'body.height', message: 'y + height must not exceed 100 (% of the page)' },
    ]);
  });

  it.each([
    [0, 400],
    [1, 201],
    [1.5, 400],
  ])('page %s gives %i', async (page, status) => {
    expect((await add(draft, field({ page }))).status).toBe(status);
  });

  it('page must not exceed the page count once known', async () => {
    const docId = await createDocument(t);
    expect((await add(docId, field({ page: 40 }))).status).toBe(201); // page count unknown: any page
    await giveFileDirectly(t, docId, 3);
    expect((await add(docId, field({ page: 3 }))).status).toBe(201);
    const res = await add(docId, field({ page: 4 }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'body.page', message: "must be at most 3 (the document's page count)" },
    ]);
  });

  it.each(['dropdown', 'radio'])(
    '%s needs options; a default must be one of them',
    async (type) => {
      const missing = await add(draft, field({ type }));
      expect(missing.status).toBe(400);
      expect(missing.body.error.details).toEqual([
        { path: 'body.options', message: `is required for ${type} fields` },
      ]);
      expect((await add(draft, field({ type, options: null }))).status).toBe(400);
      expect((await add(draft, field({ type, options: [] }))).status).toBe(400);
      expect((await add(draft, field({ type, options: ['a', 'a'] }))).status).toBe(400);
      expect(
        (await add(draft, field({ type, options: ['a', 'b'], defaultValue: 'c' }))).status,
      ).toBe(400);
      const ok = await add(draft, field({ type, options: ['a', 'b'], defaultValue: 'b' }));
      expect(ok.status).toBe(201);
      expect(ok.body.data).toMatchObject({ type, options: ['a', 'b'], defaultValue: 'b' });
    },
  );

  it.each(['signature', 'initials', 'name', 'email', 'date', 'text', 'number', 'checkbox'])(
    '%s refuses options',
    async (type) => {
      const res = await add(draft, field({ type, options: ['a'] }));
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { path: 'body.options', message: `must be null for ${type} fields` },
      ]);
      expect((await add(draft, field({ type, options: null }))).status).toBe(201);
    },
  );

  it.each([
    [{ type: 'stamp' }, 'body.type'],
    [{ colour: 'red' }, 'body.colour'],
    [{ value: 'x' }, 'body.value'],
    [{ label: 'l'.repeat(201) }, 'body.label'],
    [{ assignedTo: -1 }, 'body.assignedTo'],
    [{ required: 'yes' }, 'body.required'],
  ])('refuses %j at %s', async (extra, path) => {
    const res = await add(draft, field(extra));
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a missing required property', async () => {
    const { x: _x, ...noX } = field();
    const res = await add(draft, noX);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ path: 'body.x', message: 'is required' });
  });

  it('accepts at most 500 fields (409 limit_reached for the 501st)', async () => {
    const docId = await createDocument(t, { fields: Array.from({ length: 500 }, () => field()) });
    const res = await add(docId, field());
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('limit_reached');
    const [first] = (await t.request('GET', `${fieldsUrl(docId)}?limit=1`)).body.data;
    expect((await t.request('DELETE', `${fieldsUrl(docId)}/${first.id}`)).status).toBe(204);
    expect((await add(docId, field())).status).toBe(201);
  });

  it('is 404 for an unknown document', async () => {
    expect((await add('doc_unknown', field())).status).toBe(404);
  });
});

describe('GET /api/v1/documents/{id}/fields', () => {
  it('lists fields oldest first, paginated', async () => {
    const docId = await createDocument(t);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await add(docId, field({ page: i }))).body.data.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await t.request(
        'GET',
        `${fieldsUrl(docId)}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.meta.count).toBe(page.body.data.length);
      seen.push(...page.body.data.map((f: { id: string }) => f.id));
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
  });
});

describe('PATCH /api/v1/documents/{id}/fields/{fieldId}', () => {
  it('checks the field as it is after the change', async () => {
    const docId = await createDocument(t);
    const f = (await add(docId, field({ x: 50, width: 30 }))).body.data;
    const tooWide = await patch(docId, f.id, { x: 70.01 });
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.error.details[0].path).toBe('body.width');
    expect((await patch(docId, f.id, { x: 70 })).body.data).toMatchObject({ x: 70, width: 30 });
    expect((await patch(docId, f.id, { width: 30.01 })).status).toBe(400);
    // Becoming a dropdown needs options; leaving it needs options cleared.
    expect((await patch(docId, f.id, { type: 'dropdown' })).status).toBe(400);
    const dropdown = await patch(docId, f.id, {
      type: 'dropdown',
      options: ['yes', 'no'],
      defaultValue: 'no',
    });
    expect(dropdown.status).toBe(200);
    expect(dropdown.body.data).toMatchObject({
      type: 'dropdown',
      options: ['yes', 'no'],
      defaultValue: 'no',
    });
    expect((await patch(docId, f.id, { options: ['maybe'] })).status).toBe(400); // default no longer an option
    expect((await patch(docId, f.id, { type: 'text' })).status).toBe(400);
    const text = await patch(docId, f.id, {
      type: 'text',
      options: null,
      defaultValue: null,
      label: 'Notes',
      required: false,
      readOnly: true,
      assignedTo: 2,
      placeholder: 'Type here',
    });
    expect(text.status).toBe(200);
    expect(text.body.data).toMatchObject({
      type: 'text',
      options: null,
      label: 'Notes',
      required: false,
      readOnly: true,
      assignedTo: 2,
      placeholder: 'Type here',
      x: 70,
    });
    const detail = (await t.request('GET', `/api/v1/documents/${docId}`)).body.data.fields[0];
    expect(detail).toEqual(text.body.data);
    expect((await actions(docId)).filter((a) => a === 'field.updated')).toHaveLength(3);
  });

  it('checks page against the page count and refuses bad bodies', async () => {
    const docId = await createDocument(t);
    const f = (await add(docId, field())).body.data;
    await giveFileDirectly(t, docId, 2);
    expect((await patch(docId, f.id, { page: 2 })).status).toBe(200);
    expect((await patch(docId, f.id, { page: 3 })).status).toBe(400);
    expect((await patch(docId, f.id, { page: 0 })).status).toBe(400);
    expect((await patch(docId, f.id, {})).status).toBe(400);
    expect((await patch(docId, f.id, { id: 'fld_x' })).status).toBe(400);
    expect((await patch(docId, 'fld_unknown', { page: 1 })).status).toBe(404);
  });
});

describe('DELETE /api/v1/documents/{id}/fields/{fieldId}', () => {
  it('removes a field (204), audits field.removed, then 404', async () => {
    const docId = await createDocument(t);
    const f = (await add(docId, field())).body.data;
    const res = await t.request('DELETE', `${fieldsUrl(docId)}/${f.id}`);
    expect(res.status).toBe(204);
    expect((await t.request('GET', fieldsUrl(docId))).body.data).toEqual([]);
    expect((await t.request('DELETE', `${fieldsUrl(docId)}/${f.id}`)).status).toBe(404);
    expect(await actions(docId)).toEqual(['document.created', 'field.added', 'field.removed']);
  });
});

describe('fields outside draft', () => {
  it.each(['pending', 'cancelled'])(
    'are read-only once the document is %s (409 invalid_state)',
    async (state) => {
      const docId = await readyDocument(t);
      expect((await t.request('POST', `/api/v1/documents/${docId}/send`)).status).toBe(200);
      if (state === 'cancelled')
        expect((await t.request('POST', `/api/v1/documents/${docId}/cancel`)).status).toBe(200);
      const before = (await t.request('GET', fieldsUrl(docId))).body.data;
      const f = before[0];
      for (const res of [
        await add(docId, field()),
        await patch(docId, f.id, { label: 'late' }),
        await t.request('DELETE', `${fieldsUrl(docId)}/${f.id}`),
      ]) {
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('invalid_state');
      }
      expect((await t.request('GET', fieldsUrl(docId))).body.data).toEqual(before);
    },
  );
});
