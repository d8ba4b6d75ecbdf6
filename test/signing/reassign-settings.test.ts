import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkTemplate, clientRow } from '../bulk-sends/setup.ts';
import { createTemplate } from '../templates/setup.ts';
import { type SigningTest, signingApp } from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const get = async (path: string) => (await t.request('GET', path)).body.data;
const create = async (body: Record<string, unknown>) => {
  const res = await t.request('POST', '/api/v1/documents', { body: { name: 'Lease', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
};

describe('allowReassign', () => {
  it('on a document: false by default, set at create, changed while draft, in the detail and the list item', async () => {
    const plain = await create({});
    expect((await get(`/api/v1/documents/${plain}`)).allowReassign).toBe(false);
    const allowed = await create({ allowReassign: true });
    expect((await get(`/api/v1/documents/${allowed}`)).allowReassign).toBe(true);
    const listed = await get('/api/v1/documents?limit=100');
    expect(listed.find((d: any) => d.id === allowed).allowReassign).toBe(true);
    expect(listed.find((d: any) => d.id === plain).allowReassign).toBe(false);

    const patched = await t.request('PATCH', `/api/v1/documents/${plain}`, {
      body: { allowReassign: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.allowReassign).toBe(true);
    expect(
      (await t.request('PATCH', `/api/v1/documents/${plain}`, { body: { allowReassign: 'yes' } }))
        .status,
    ).toBe(400);
  });

  it('on a template: the default of the documents made from it, which may say otherwise', async () => {
    const tpl = await createTemplate(t, { allowReassign: true });
    expect((await get(`/api/v1/templates/${tpl}`)).allowReassign).toBe(true);
    expect(
      (await get(`/api/v1/templates?limit=100`)).find((x: any) => x.id === tpl).allowReassign,
    ).toBe(true);
    const inherits = await create({ templateId: tpl });
    expect((await get(`/api/v1/documents/${inherits}`)).allowReassign).toBe(true);
    const overrides = await create({ templateId: tpl, allowReassign: false });
    expect((await get(`/api/v1/documents/${overrides}`)).allowReassign).toBe(false);

    const off = await t.request('PATCH', `/api/v1/templates/${tpl}`, {
      body: { allowReassign: false },
    });
    expect(off.body.data.allowReassign).toBe(false);
    const plain = await createTemplate(t);
    expect((await get(`/api/v1/templates/${plain}`)).allowReassign).toBe(false);
  });

  it('on a bulk send: the default of its documents, else the template’s', async () => {
    const tpl = await bulkTemplate(t);
    const runs: [Record<string, unknown>, boolean][] = [
      [{}, false],
      [{ allowReassign: true }, true],
    ];
    for (const [extra, expected] of runs) {
      const res = await t.request('POST', '/api/v1/bulk-sends', {
        body: { templateId: tpl, rows: [clientRow(1)], ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await t.settle();
      const docs = await get(`/api/v1/documents?bulkSendId=${res.body.data.id}`);
      expect(docs).toHaveLength(1);
      expect(docs[0].allowReassign).toBe(expected);
    }
    await t.request('PATCH', `/api/v1/templates/${tpl}`, { body: { allowReassign: true } });
    const inherits = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, rows: [clientRow(2)] },
    });
    await t.settle();
    const docs = await get(`/api/v1/documents?bulkSendId=${inherits.body.data.id}`);
    expect(docs[0].allowReassign).toBe(true);
  });
});
