import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { createTemplate } from '../templates/setup.ts';
import { listen, putFile, requestUpload, type Ticket } from './helpers.ts';
import {
  actualTextPdf,
  cidPdf,
  manyTagsPdf,
  operatorsPdf,
  pdftotext,
  wordBoxes,
} from './tagged-pdfs.ts';

// Uploads with `textTags: true` (README "Text tags"): fields made at the tags, warnings, and the
// tags removed from the file signers see, over real HTTP with the local driver.
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** pdf-lib, Helvetica, plain `Tj`: tags well-formed and not, each sharing its line with words. */
async function plainPdf(): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  const line = (text: string, y: number) => page.drawText(text, { x: 50, y, size: 12, font });
  line('Tenant {{signature:1}} signs here', 700);
  line('City {{text:2;label=City;required=false;width=150;height=30}} end', 650);
  line('Plan {{dropdown:1;options=Basic|Pro;default=Pro}} chosen', 600);
  line('Bad {{signature:}} and {{stamp:1}} and {{text:1;colour=red}}', 550);
  line('Third {{initials:3}} party', 500);
  return Buffer.from(await pdf.save());
}

async function upload(id: string, bytes: Buffer, body: Record<string, unknown> = {}) {
  const ticket: Ticket = await requestUpload(t, id, { textTags: true, ...body });
  const res = await putFile(base, ticket, bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** The PDF signers see (the document's file, not the bytes as uploaded). */
async function shownFile(id: string): Promise<Buffer> {
  const res = await t.request('GET', `/api/v1/documents/${id}/download`);
  expect(res.status).toBe(200);
  return res.raw.rawPayload;
}

const byType = (fields: any[], type: string) => fields.filter((f) => f.type === type);

describe('text tags on a document upload', () => {
  it('makes a field at each tag, reports malformed ones, and removes every tag from the file', async () => {
    const id = await createDocument(t, { signers: [signer(1), signer(2)] });
    const bytes = await plainPdf();
    const doc = await upload(id, bytes);
    expect(doc.documentHash).toBe(sha256(bytes));
    const [sig] = byType(doc.fields, 'signature');
    // Top-left at the tag's box: after "Tenant ", Helvetica's ascent above the baseline at 700.
    expect(sig.x).toBeGreaterThan((90 / 595) * 100);
    expect(sig.x).toBeLessThan((100 / 595) * 100);
    expect(sig.y).toBeCloseTo(((842 - 700 - 0.718 * 12) / 842) * 100, 1);
    // No size given: the tag's box (75 points wide in 12-point Helvetica), at least the type's
    // minimum (60 × 20 points for a signature: taller than the text).
    expect(sig.assignedTo).toBe(0);
    expect((sig.width / 100) * 595).toBeCloseTo(75.4, 0);
    expect((sig.height / 100) * 842).toBeCloseTo(20, 1);
    const [city] = byType(doc.fields, 'text');
    expect(city).toMatchObject({ label: 'City', required: false, assignedTo: 1 });
    expect(city.width).toBeCloseTo((150 / 595) * 100, 2);
    expect(city.height).toBeCloseTo((30 / 842) * 100, 2);
    const [plan] = byType(doc.fields, 'dropdown');
    expect(plan).toMatchObject({ options: ['Basic', 'Pro'], defaultValue: 'Pro' });
    expect(doc.fields).toHaveLength(3);
    expect(doc.warnings.map((w: any) => [w.code, w.page])).toEqual([
      ['invalid_tag', 1],
      ['invalid_tag', 1],
      ['invalid_tag', 1],
      ['unknown_signer', 1],
    ]);
    expect(doc.warnings[1].message).toContain('stamp');

    const shown = await shownFile(id);
    expect(sha256(shown)).not.toBe(sha256(bytes));
    // The upload is the first revision of the file signers see.
    expect(shown.subarray(0, bytes.length).equals(bytes)).toBe(true);
    const text = await pdftotext(shown);
    if (text === null)
      return console.warn('pdftotext (poppler) is not installed: text not checked');
    expect(text).not.toContain('{{');
    expect(text).not.toContain('}}');
    for (const words of ['Tenant', 'signs here', 'City', 'end', 'chosen', 'Bad', 'party'])
      expect(text).toContain(words);
  });

  it('keeps the words after a tag where they were', async () => {
    const id = await createDocument(t, { signers: [signer(1), signer(2)] });
    const bytes = await plainPdf();
    await upload(id, bytes);
    const before = await wordBoxes(bytes);
    if (before === null) return console.warn('pdftotext (poppler) is not installed');
    const after = (await wordBoxes(await shownFile(id)))!;
    expect(before.has('{{signature:1}}')).toBe(true);
    expect(after.has('{{signature:1}}')).toBe(false);
    for (const word of ['signs', 'chosen', 'party'])
      expect(after.get(word)?.[0]).toBeCloseTo(before.get(word)![0], 1);
  });

  it('removes tags from TJ arrays, split operators, form XObjects and two-byte fonts', async () => {
    const id = await createDocument(t, { signers: [signer(1), signer(2)] });
    const doc = await upload(id, operatorsPdf());
    expect(doc.warnings).toEqual([]);
    expect(doc.fields.map((f: any) => [f.type, f.assignedTo, f.label])).toEqual([
      ['initials', 0, ''],
      ['text', 1, 'Full name'],
      ['date', 1, ''],
    ]);
    // The form is drawn at 72, 500 with 10-point text.
    const date = doc.fields[2];
    expect(date.y).toBeCloseTo(((792 - 500 - 0.718 * 10) / 792) * 100, 1);
    const cid = await createDocument(t, { signers: [signer(1)] });
    const cidDoc = await upload(cid, cidPdf());
    expect(cidDoc.fields.map((f: any) => f.type)).toEqual(['signature']);
    for (const [docId, kept] of [
      [id, ['Initials:', 'end of line', 'Name:', 'after', 'Next line', 'Dated', 'here']],
      [cid, ['Sign', 'thanks']],
    ] as const) {
      const text = await pdftotext(await shownFile(docId));
      if (text === null) return console.warn('pdftotext (poppler) is not installed');
      expect(text).not.toContain('{{');
      for (const words of kept) expect(text).toContain(words);
    }
  });

  it('leaves a tag whose text an /ActualText span stands for: tag_not_removed, no field', async () => {
    const id = await createDocument(t, { signers: [signer(1)] });
    const doc = await upload(id, actualTextPdf());
    expect(doc.fields.map((f: any) => f.type)).toEqual(['signature']);
    expect(doc.warnings.map((w: any) => [w.code, w.page])).toEqual([
      ['tag_not_removed', 1],
      ['tag_not_removed', 1],
    ]);
    const text = await pdftotext(await shownFile(id));
    if (text === null) return console.warn('pdftotext (poppler) is not installed');
    expect(text).not.toContain('{{signature');
    expect(text).toContain('Plain');
  });

  it('replaces only the fields tags made at the next tagged upload; warnings are replaced too', async () => {
    const id = await createDocument(t, { signers: [signer(1), signer(2)], fields: [field()] });
    await upload(id, await plainPdf());
    const again = await upload(id, operatorsPdf());
    expect(again.fields.map((f: any) => f.type)).toEqual(['signature', 'initials', 'text', 'date']);
    expect(again.fields[0]).toMatchObject({ x: 10, y: 10 });
    expect(again.warnings).toEqual([]);
  });

  it('without signers yet, every well-formed tag makes its field', async () => {
    const id = await createDocument(t);
    const doc = await upload(id, await plainPdf());
    expect(byType(doc.fields, 'initials')).toHaveLength(1);
    expect(doc.warnings.map((w: any) => w.code)).toEqual([
      'invalid_tag',
      'invalid_tag',
      'invalid_tag',
    ]);
  });

  it('leaves the file and its fields alone without textTags', async () => {
    const id = await createDocument(t, { signers: [signer(1)] });
    const bytes = await plainPdf();
    const ticket = await requestUpload(t, id);
    expect(ticket).toMatchObject({ textTags: false });
    const doc = (await putFile(base, ticket, bytes)).body.data;
    expect(doc.fields).toEqual([]);
    expect(doc.warnings).toEqual([]);
    expect(sha256(await shownFile(id))).toBe(sha256(bytes));
  });

  it('past 1,000 tags the rest make no field, with one too_many_tags warning', async () => {
    const id = await createDocument(t);
    const doc = await upload(id, await manyTagsPdf(1005, 70));
    expect(doc.fields).toHaveLength(500);
    expect(doc.warnings.map((w: any) => w.code)).toEqual(['too_many_tags']);
    expect(doc.warnings[0].message).toContain('1005');
    const text = await pdftotext(await shownFile(id));
    if (text !== null) expect(text).not.toContain('{{');
  }, 30_000);
});

describe('text tags on a template upload', () => {
  it('assigns by role order or role name, warns on unknown roles, and documents get the file without tags', async () => {
    const template = await createTemplate(t, {
      roles: [{ name: 'Tenant' }, { name: 'Landlord' }],
    });
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const page = pdf.addPage([595, 842]);
    page.drawText('A {{signature:1}} B {{signature:1;role=Landlord}} C {{text:1;role=Agent}}', {
      x: 40,
      y: 700,
      size: 10,
      font,
    });
    const bytes = Buffer.from(await pdf.save());
    const res = await t.request('POST', `/api/v1/templates/${template}/upload`, {
      body: { textTags: true },
    });
    const put = await putFile(base, res.body.data, bytes);
    expect(put.status).toBe(200);
    const detail = put.body.data;
    expect(detail.fields.map((f: any) => f.assignedTo)).toEqual([0, 1]);
    expect(detail.warnings.map((w: any) => w.code)).toEqual(['unknown_signer']);
    const made = await t.request('POST', '/api/v1/documents', {
      body: { name: 'From template', templateId: template },
    });
    expect(made.status).toBe(201);
    const text = await pdftotext(await shownFile(made.body.data.id));
    if (text !== null) {
      expect(text).not.toContain('{{');
      expect(text).toContain('A');
    }
  });
});
