import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate } from '../templates/setup.ts';

/*
 * Anchors on templates and in the inline fields of a document create (README "Fields placed at
 * text (anchors)"): the same rules as POST /api/v1/documents/{id}/fields (test/fields/anchors.test.ts).
 */

let t: TestApp;
let pdf: Buffer;
beforeAll(async () => {
  t = await buildTestApp();
  pdf = await formPdf();
});
afterAll(async () => t.close());

/** 595 × 842-point pages made by pdf-lib: "Sign here:" twice on page 1, once on page 2. */
async function formPdf(): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const p1 = doc.addPage([595, 842]);
  p1.drawText('Tenant  Sign here: ________', { x: 50, y: 700, size: 12, font });
  p1.drawText('Landlord', { x: 300, y: 400, size: 12, font });
  p1.drawText('Sign here:', { x: 300, y: 380, size: 12, font });
  const p2 = doc.addPage([595, 842]);
  p2.drawText('Guarantor Sign here:', { x: 100, y: 200, size: 10, font });
  return Buffer.from(await doc.save());
}

/** A template with two roles whose file is formPdf(), stored as an upload stores it. */
async function templateWithFile(fields: unknown[] = []): Promise<string> {
  const id = await createTemplate(t, {
    roles: [{ name: 'Tenant' }, { name: 'Landlord' }],
    fields,
  });
  const key = `templates/${id}/original.pdf`;
  await t.app.deps.storage.put(key, Readable.from(pdf), 'application/pdf');
  await t.database.handle.db
    .updateTable('templates')
    .set({
      file_key: key,
      original_file_key: key,
      original_content_type: 'application/pdf',
      file_size: pdf.length,
      page_count: 2,
      document_hash: createHash('sha256').update(pdf).digest('hex'),
    })
    .where('id', '=', id)
    .execute();
  return id;
}

const addTo = (templateId: string, body: unknown) =>
  t.request('POST', `/api/v1/templates/${templateId}/fields`, { body });
const documentCount = async () =>
  Number(
    (
      await t.database.handle.db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /api/v1/templates/{id}/fields with an anchor', () => {
  it('places a field at every occurrence (201, a list), for the role it names', async () => {
    const tpl = await templateWithFile();
    const res = await addTo(tpl, {
      type: 'signature',
      label: 'Sign',
      anchor: { text: 'Sign here:' },
      assignedTo: 1,
    });
    expect(res.status).toBe(201);
    const fields = res.body.data as any[];
    expect(fields.map((f) => f.page)).toEqual([1, 1, 2]);
    expect(fields[1].x).toBeCloseTo((300 / 595) * 100, 1);
    expect(fields[1].y).toBeCloseTo(((842 - 380 - 0.718 * 12) / 842) * 100, 1);
    // The signature type's default size: 180 × 48 points.
    expect(fields[0].width).toBeCloseTo((180 / 595) * 100, 2);
    expect(fields.every((f) => f.assignedTo === 1 && f.label === 'Sign')).toBe(true);
    const listed = await t.request('GET', `/api/v1/templates/${tpl}/fields`);
    expect(listed.body.data.map((f: any) => f.id)).toEqual(fields.map((f) => f.id));
  });

  it('takes one occurrence, offsets and a size in points', async () => {
    const tpl = await templateWithFile();
    const res = await addTo(tpl, {
      type: 'date',
      anchor: { text: 'Sign here:', occurrence: 2, offsetX: 70, offsetY: -4, width: 119 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].x).toBeCloseTo((370 / 595) * 100, 1);
    expect(res.body.data[0].y).toBeCloseTo(((842 - 380 - 0.718 * 12 - 4) / 842) * 100, 1);
    expect(res.body.data[0].width).toBeCloseTo(20, 2);
  });

  it('compares after NFKC normalization, runs of white space equal, case-sensitively', async () => {
    const tpl = await templateWithFile();
    // Full-width letters and a no-break space are the same text as ASCII after NFKC.
    const wide = await addTo(tpl, {
      type: 'name',
      anchor: { text: 'Ｔｅｎａｎｔ\u00a0 Sign here:' },
    });
    expect(wide.status).toBe(201);
    expect(wide.body.data).toHaveLength(1);
    const cased = await addTo(tpl, { type: 'name', anchor: { text: 'sign here:' } });
    expect(cased.status).toBe(400);
    expect(cased.body.error.code).toBe('anchor_not_found');
  });

  it('answers anchor_not_found, an empty list with ignoreIfMissing, 409 missing_file without a file', async () => {
    const tpl = await templateWithFile();
    const missing = await addTo(tpl, { type: 'signature', anchor: { text: 'Witness' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'anchor_not_found',
      details: [{ path: 'body.anchor.text', message: 'does not occur in the file' }],
    });
    const ignored = await addTo(tpl, {
      type: 'signature',
      anchor: { text: 'Witness', ignoreIfMissing: true },
    });
    expect(ignored.status).toBe(201);
    expect(ignored.body.data).toEqual([]);
    expect((await t.request('GET', `/api/v1/templates/${tpl}/fields`)).body.data).toEqual([]);

    const bare = await createTemplate(t, { roles: [{ name: 'Tenant' }] });
    const noFile = await addTo(bare, { type: 'signature', anchor: { text: 'Sign here:' } });
    expect(noFile.status).toBe(409);
    expect(noFile.body.error.code).toBe('missing_file');
    const mixed = await addTo(tpl, { ...field(), anchor: { text: 'Sign here:' } });
    expect(mixed.status).toBe(400);
  });
});

describe('POST /api/v1/documents with templateId and anchored inline fields', () => {
  it("places them on the file copied from the template, in the body's order, beside the template's own fields", async () => {
    const tpl = await templateWithFile([field({ label: 'Template field' })]);
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Lease for Ada',
        templateId: tpl,
        signers: [
          { name: 'Ada', email: 'ada@example.test' },
          { name: 'Lin', email: 'lin@example.test' },
        ],
        fields: [
          { type: 'initials', label: 'Guarantor', anchor: { text: 'Guarantor' }, assignedTo: 1 },
          field({ type: 'text', label: 'Placed', y: 80 }),
          {
            type: 'signature',
            label: 'Landlord signs',
            anchor: { text: 'Sign here:', occurrence: 2, offsetX: 70 },
            assignedTo: 1,
          },
          { type: 'text', label: 'Absent', anchor: { text: 'Nowhere', ignoreIfMissing: true } },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const detail = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    const byLabel = Object.fromEntries(detail.fields.map((f: any) => [f.label, f]));
    expect(detail.fields.map((f: any) => f.label)).toEqual([
      'Template field',
      'Guarantor',
      'Placed',
      'Landlord signs',
    ]);
    expect(byLabel.Guarantor).toMatchObject({ page: 2, type: 'initials', assignedTo: 1 });
    expect(byLabel.Guarantor.x).toBeCloseTo((100 / 595) * 100, 1);
    expect(byLabel['Landlord signs'].page).toBe(1);
    expect(byLabel['Landlord signs'].x).toBeCloseTo((370 / 595) * 100, 1);
  });

  it('refuses an anchor with no occurrence naming it (400 anchor_not_found), and creates nothing', async () => {
    const tpl = await templateWithFile();
    const before = await documentCount();
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Lease',
        templateId: tpl,
        fields: [field(), { type: 'signature', anchor: { text: 'Witness' } }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'anchor_not_found',
      details: [{ path: 'body.fields.1.anchor.text', message: 'does not occur in the file' }],
    });
    expect(await documentCount()).toBe(before);
  });

  it('refuses anchors on a document that has no file yet (409 missing_file)', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'No file', fields: [{ type: 'signature', anchor: { text: 'Sign here:' } }] },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('missing_file');
    expect(res.body.error.details[0].path).toBe('body.fields.0.anchor');
  });
});
