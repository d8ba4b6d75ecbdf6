import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const LIST_KEYS = [
  '_count',
  'allowReassign',
  'createdAt',
  'description',
  'documentHash',
  'fileSize',
  'id',
  'name',
  'pageCount',
  'signingType',
  'updatedAt',
];

describe('POST /api/v1/templates', () => {
  it('creates a template with roles and fields, answered as the detail', async () => {
    const res = await t.request('POST', '/api/v1/templates', {
      body: {
        name: 'Lease',
        description: 'Residential lease',
        roles: [{ name: 'Tenant' }, { name: 'Landlord', signerEmail: 'Owner@Example.test' }],
        fields: [field(), field({ assignedTo: 1, type: 'date', y: 40 })],
      },
    });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual([...LIST_KEYS, 'fields', 'roles', 'warnings'].sort());
    expect(d).toMatchObject({
      name: 'Lease',
      description: 'Residential lease',
      signingType: 'sequential',
      fileSize: 0,
      pageCount: null,
      documentHash: '',
    });
    expect(d.id).toMatch(/^tpl_/);
    expect(d._count).toEqual({ roles: 2, fields: 2 });
    expect(d.roles.map((r: any) => [r.name, r.order, r.signerName, r.signerEmail])).toEqual([
      ['Tenant', 0, null, null],
      ['Landlord', 1, null, 'owner@example.test'],
    ]);
    expect(d.roles[0].id).toMatch(/^rol_/);
    expect(d.fields[1]).toMatchObject({
      type: 'date',
      assignedTo: 1,
      required: true,
      readOnly: false,
      options: null,
    });
    expect(d.fields[1]).not.toHaveProperty('value');
  });

  it.each([
    ['', 400],
    ['a', 201],
    ['x'.repeat(200), 201],
    ['x'.repeat(201), 400],
  ])('name of %#: length boundary gives %i', async (name, status) => {
    const res = await t.request('POST', '/api/v1/templates', { body: { name } });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.details[0].path).toBe('body.name');
  });

  it('refuses taken role orders, a fixed name without an email, bad fields and unknown keys', async () => {
    const dup = await t.request('POST', '/api/v1/templates', {
      body: {
        name: 'x',
        roles: [
          { name: 'A', order: 1 },
          { name: 'B', order: 1 },
        ],
      },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].path).toBe('body.roles.1.order');
    const nameOnly = await t.request('POST', '/api/v1/templates', {
      body: { name: 'x', roles: [{ name: 'A', signerName: 'Ann' }] },
    });
    expect(nameOnly.status).toBe(400);
    expect(nameOnly.body.error.details[0].path).toBe('body.roles.0.signerEmail');
    const offPage = await t.request('POST', '/api/v1/templates', {
      body: { name: 'x', fields: [field({ x: 90, width: 20 })] },
    });
    expect(offPage.status).toBe(400);
    expect(offPage.body.error.details[0].path).toBe('body.fields.0.width');
    const unknown = await t.request('POST', '/api/v1/templates', {
      body: { name: 'x', fileSize: 3 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toEqual({
      path: 'body.fileSize',
      message: 'is not a known field',
    });
    const badEmail = await t.request('POST', '/api/v1/templates', {
      body: { name: 'x', roles: [{ name: 'A', signerEmail: 'nope' }] },
    });
    expect(badEmail.status).toBe(400);
  });
});

describe('GET /api/v1/templates', () => {
  it('lists newest first with cursors and searches by name', async () => {
    const { key } = await t.newOrg('Lister');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await createTemplate(t, { name: `Form ${i}${i === 3 ? ' SPECIAL_%' : ''}` }, key));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.request(
        'GET',
        `/api/v1/templates?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { key },
      );
      expect(page.status).toBe(200);
      expect(Object.keys(page.body.data[0]).sort()).toEqual(LIST_KEYS);
      expect(page.body.meta.count).toBe(page.body.data.length);
      seen.push(...page.body.data.map((x: any) => x.id));
      cursor = page.body.meta.nextCursor;
      expect(cursor === null).toBe(!page.body.meta.hasMore);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const search = await t.request(
      'GET',
      `/api/v1/templates?search=${encodeURIComponent('special_%')}`,
      { key },
    );
    expect(search.body.data.map((x: any) => x.id)).toEqual([ids[3]]);
    expect(
      (await t.request('GET', '/api/v1/templates?search=_', { key })).body.data.map(
        (x: any) => x.id,
      ),
    ).toEqual([ids[3]]);
    expect((await t.request('GET', '/api/v1/templates?limit=101', { key })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/templates?cursor=nope', { key })).body.error.code).toBe(
      'invalid_cursor',
    );
  });
});

describe('PATCH and DELETE /api/v1/templates/{id}', () => {
  it('edits name, description and signing type; refuses empty and unknown bodies', async () => {
    const id = await createTemplate(t);
    const res = await t.request('PATCH', `/api/v1/templates/${id}`, {
      body: { name: 'Renamed', description: 'd', signingType: 'parallel' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed',
      description: 'd',
      signingType: 'parallel',
    });
    expect((await t.request('PATCH', `/api/v1/templates/${id}`, { body: {} })).status).toBe(400);
    expect(
      (await t.request('PATCH', `/api/v1/templates/${id}`, { body: { pageCount: 2 } })).status,
    ).toBe(400);
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}`, {
          body: { description: 'd'.repeat(2001) },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}`, {
          body: { description: 'd'.repeat(2000) },
        })
      ).status,
    ).toBe(200);
  });

  it('deletes for good with its roles, fields and file', async () => {
    const id = await createTemplate(t, { roles: [{ name: 'A' }], fields: [field()] });
    await giveTemplateFile(t, id);
    const key = `templates/${id}/original.pdf`;
    expect(await t.app.deps.storage.stat(key)).not.toBeNull();
    const res = await t.request('DELETE', `/api/v1/templates/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request('GET', `/api/v1/templates/${id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/templates/${id}`)).status).toBe(404);
    expect(await t.app.deps.storage.stat(key)).toBeNull();
    const orphans = await t.database.handle.db
      .selectFrom('template_fields')
      .select('id')
      .where('template_id', '=', id)
      .execute();
    expect(orphans).toEqual([]);
  });
});

describe('roles sub-resource', () => {
  it('adds, lists in order with cursors, edits and removes roles', async () => {
    const id = await createTemplate(t);
    const a = await t.request('POST', `/api/v1/templates/${id}/roles`, { body: { name: 'Buyer' } });
    expect(a.status).toBe(201);
    expect(Object.keys(a.body.data).sort()).toEqual([
      'createdAt',
      'group',
      'id',
      'locale',
      'name',
      'order',
      'signerEmail',
      'signerName',
      'updatedAt',
    ]);
    expect(a.body.data).toMatchObject({
      name: 'Buyer',
      order: 0,
      signerName: null,
      signerEmail: null,
    });
    const b = await t.request('POST', `/api/v1/templates/${id}/roles`, {
      body: { name: 'Seller', order: 10, signerName: 'Sam', signerEmail: 'sam@example.test' },
    });
    expect(b.body.data).toMatchObject({
      order: 10,
      signerName: 'Sam',
      signerEmail: 'sam@example.test',
    });
    const c = await t.request('POST', `/api/v1/templates/${id}/roles`, {
      body: { name: 'Witness' },
    });
    expect(c.body.data.order).toBe(11);
    const dup = await t.request('POST', `/api/v1/templates/${id}/roles`, {
      body: { name: 'Dup', order: 0 },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].path).toBe('body.order');

    const page1 = await t.request('GET', `/api/v1/templates/${id}/roles?limit=2`);
    expect(page1.body.data.map((r: any) => r.order)).toEqual([0, 10]);
    const page2 = await t.request(
      'GET',
      `/api/v1/templates/${id}/roles?limit=2&cursor=${page1.body.meta.nextCursor}`,
    );
    expect(page2.body.data.map((r: any) => r.order)).toEqual([11]);
    expect(page2.body.meta).toEqual({ count: 1, hasMore: false, nextCursor: null });

    // A field follows its role to a new order.
    const f = await t.request('POST', `/api/v1/templates/${id}/fields`, {
      body: field({ assignedTo: 10 }),
    });
    const moved = await t.request('PATCH', `/api/v1/templates/${id}/roles/${b.body.data.id}`, {
      body: { order: 5 },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.order).toBe(5);
    const fields = await t.request('GET', `/api/v1/templates/${id}/fields`);
    expect(fields.body.data.find((x: any) => x.id === f.body.data.id).assignedTo).toBe(5);
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}/roles/${b.body.data.id}`, {
          body: { order: 0 },
        })
      ).status,
    ).toBe(400);

    // Clearing the email while a fixed name remains is refused; clearing both is fine.
    const half = await t.request('PATCH', `/api/v1/templates/${id}/roles/${b.body.data.id}`, {
      body: { signerEmail: null },
    });
    expect(half.status).toBe(400);
    const cleared = await t.request('PATCH', `/api/v1/templates/${id}/roles/${b.body.data.id}`, {
      body: { signerEmail: null, signerName: null },
    });
    expect(cleared.body.data).toMatchObject({ signerName: null, signerEmail: null });
    expect(
      (await t.request('PATCH', `/api/v1/templates/${id}/roles/${b.body.data.id}`, { body: {} }))
        .status,
    ).toBe(400);

    expect(
      (await t.request('DELETE', `/api/v1/templates/${id}/roles/${c.body.data.id}`)).status,
    ).toBe(204);
    expect(
      (await t.request('DELETE', `/api/v1/templates/${id}/roles/${c.body.data.id}`)).status,
    ).toBe(404);
    expect((await t.request('GET', `/api/v1/templates/${id}`)).body.data._count).toEqual({
      roles: 2,
      fields: 1,
    });
  });

  it('caps a template at 50 roles', async () => {
    const id = await createTemplate(t, {
      roles: Array.from({ length: 50 }, (_, i) => ({ name: `R${i}` })),
    });
    const res = await t.request('POST', `/api/v1/templates/${id}/roles`, {
      body: { name: 'One too many' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('limit_reached');
  });
});

describe('fields sub-resource', () => {
  it('adds, lists, edits and removes fields with the document field rules', async () => {
    const id = await createTemplate(t);
    const add = await t.request('POST', `/api/v1/templates/${id}/fields`, {
      body: field({ type: 'dropdown', options: ['a', 'b'], label: 'Pick' }),
    });
    expect(add.status).toBe(201);
    expect(add.body.data).toMatchObject({
      type: 'dropdown',
      options: ['a', 'b'],
      label: 'Pick',
      assignedTo: 0,
    });
    expect(
      (
        await t.request('POST', `/api/v1/templates/${id}/fields`, {
          body: field({ type: 'radio' }),
        })
      ).status,
    ).toBe(400);
    const patched = await t.request('PATCH', `/api/v1/templates/${id}/fields/${add.body.data.id}`, {
      body: { x: 50, width: 50, assignedTo: 2 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ x: 50, width: 50, assignedTo: 2 });
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}/fields/${add.body.data.id}`, {
          body: { x: 51 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}/fields/${add.body.data.id}`, {
          body: { type: 'text' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.request('PATCH', `/api/v1/templates/${id}/fields/${add.body.data.id}`, {
          body: { type: 'text', options: null },
        })
      ).status,
    ).toBe(200);
    const list = await t.request('GET', `/api/v1/templates/${id}/fields`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.meta).toEqual({ count: 1, hasMore: false, nextCursor: null });
    expect(
      (await t.request('DELETE', `/api/v1/templates/${id}/fields/${add.body.data.id}`)).status,
    ).toBe(204);
    expect(
      (await t.request('DELETE', `/api/v1/templates/${id}/fields/${add.body.data.id}`)).status,
    ).toBe(404);
  });

  it('keeps fields within the page count once the file is known', async () => {
    const id = await createTemplate(t);
    await giveTemplateFile(t, id, 2);
    expect(
      (await t.request('POST', `/api/v1/templates/${id}/fields`, { body: field({ page: 2 }) }))
        .status,
    ).toBe(201);
    const res = await t.request('POST', `/api/v1/templates/${id}/fields`, {
      body: field({ page: 3 }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.page');
  });
});
