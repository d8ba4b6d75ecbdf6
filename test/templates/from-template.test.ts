import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function bytesAt(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await t.app.deps.storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const fileKeyOf = async (documentId: string) =>
  (
    await t.database.handle.db
      .selectFrom('documents')
      .select('file_key')
      .where('id', '=', documentId)
      .executeTakeFirstOrThrow()
  ).file_key!;

describe('POST /api/v1/documents with templateId', () => {
  it("copies the template's file, fields and fixed signers; open roles take the request's signers", async () => {
    const tpl = await createTemplate(t, {
      signingType: 'parallel',
      roles: [
        { name: 'Tenant' },
        { name: 'Landlord', signerName: 'Lara Lord', signerEmail: 'lara@example.test' },
        { name: 'Witness' },
      ],
      fields: [
        field({ label: 'Tenant signs' }),
        field({ assignedTo: 1, type: 'date', page: 2 }),
        field({ assignedTo: 2, y: 50 }),
      ],
    });
    const pdf = await giveTemplateFile(t, tpl, 2);
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Lease for Ann',
        templateId: tpl,
        signers: [
          { name: 'Ann', email: 'ann@example.test' },
          { name: 'Walt', email: 'walt@example.test' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.signingType).toBe('parallel');
    const doc = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    expect(doc).toMatchObject({
      templateId: tpl,
      fileSize: pdf.length,
      _count: { signers: 3, fields: 3, attachments: 0 },
    });
    expect(doc.documentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.signers.map((s: any) => [s.order, s.name, s.email, s.role])).toEqual([
      [0, 'Ann', 'ann@example.test', 'signer'],
      [1, 'Lara Lord', 'lara@example.test', 'signer'],
      [2, 'Walt', 'walt@example.test', 'signer'],
    ]);
    expect(doc.fields.map((f: any) => [f.assignedTo, f.type, f.page, f.value])).toEqual([
      [0, 'signature', 1, null],
      [1, 'date', 2, null],
      [2, 'signature', 1, null],
    ]);
    const tplFields = (await t.request('GET', `/api/v1/templates/${tpl}`)).body.data.fields.map(
      (f: any) => f.id,
    );
    for (const f of doc.fields) expect(tplFields).not.toContain(f.id);

    // The document owns a copy: the same bytes under its own key, surviving the template's deletion.
    const key = await fileKeyOf(doc.id);
    expect(key).toContain(`/documents/${doc.id}/`);
    expect((await bytesAt(key)).equals(pdf)).toBe(true);
    expect((await t.request('DELETE', `/api/v1/templates/${tpl}`)).status).toBe(204);
    expect((await bytesAt(key)).equals(pdf)).toBe(true);
    const sent = await t.request('POST', `/api/v1/documents/${doc.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.data.signerCount).toBe(3);
  });

  it('lets the request override the signing type and name signers at explicit orders', async () => {
    const tpl = await createTemplate(t, {
      signingType: 'parallel',
      roles: [{ name: 'A' }, { name: 'B' }],
      fields: [field(), field({ assignedTo: 1 })],
    });
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'x',
        templateId: tpl,
        signingType: 'sequential',
        signers: [
          { name: 'Bea', email: 'bea@example.test', order: 1 },
          { name: 'Al', email: 'al@example.test' },
        ],
      },
    });
    expect(res.body.data.signingType).toBe('sequential');
    const doc = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    expect(doc.signers.map((s: any) => [s.order, s.name])).toEqual([
      [0, 'Al'],
      [1, 'Bea'],
    ]);
    expect(doc.fileSize).toBe(0);
  });

  it("refuses another organization's template and an order taken by a fixed signer, leaving no copy behind", async () => {
    const other = await t.newOrg('Other');
    const foreign = await createTemplate(t, { fields: [field()] }, other.key);
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', templateId: foreign },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.templateId');
    expect(
      (
        await t.request('POST', '/api/v1/documents', {
          body: { name: 'x', templateId: 'tpl_nope' },
        })
      ).status,
    ).toBe(400);

    const tpl = await createTemplate(t, {
      roles: [{ name: 'Fixed', signerEmail: 'f@example.test' }],
      fields: [field()],
    });
    await giveTemplateFile(t, tpl);
    const before = await t.database.handle.db.selectFrom('documents').select('id').execute();
    const clash = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'x',
        templateId: tpl,
        signers: [{ name: 'Z', email: 'z@example.test', order: 0 }],
      },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.error.details[0].path).toBe('body.signers.0.order');
    const after = await t.database.handle.db.selectFrom('documents').select('id').execute();
    expect(after.length).toBe(before.length);
    // The copy made for the refused document was removed from storage again.
    const live = new Set(
      (await t.database.handle.db.selectFrom('documents').select('file_key').execute()).map(
        (d) => d.file_key,
      ),
    );
    const stored = fs
      .readdirSync(path.join(t.database.dataDir, 'files'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.includes('/documents/') && f.endsWith('.pdf'));
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.filter((f) => !live.has(f))).toEqual([]);
  });
});
