import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { hasChromium, launchBrowser } from '../helpers/browser.ts';
import { createDocument, signer } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const add = (docId: string, body: unknown) =>
  t.request('POST', `/api/v1/documents/${docId}/fields`, { body });

/** Stores `bytes` as the document's file, with the columns an upload sets. */
async function attach(docId: string, bytes: Buffer, pages: number): Promise<void> {
  const key = `documents/${docId}/original.pdf`;
  await t.app.deps.storage.put(key, Readable.from(bytes), 'application/pdf');
  await t.database.handle.db
    .updateTable('documents')
    .set({
      file_key: key,
      original_file_key: key,
      original_content_type: 'application/pdf',
      file_size: bytes.length,
      page_count: pages,
      document_hash: createHash('sha256').update(bytes).digest('hex'),
    })
    .where('id', '=', docId)
    .execute();
}

/** A2-sized pages (595 × 842 points) made by pdf-lib: "Sign here:" twice on page 1, once on page 2. */
async function formPdf(): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const p1 = pdf.addPage([595, 842]);
  p1.drawText('Tenant  Sign here: ________', { x: 50, y: 700, size: 12, font });
  p1.drawText('Landlord', { x: 300, y: 400, size: 12, font });
  p1.drawText('Sign here:', { x: 300, y: 380, size: 12, font });
  const p2 = pdf.addPage([595, 842]);
  p2.drawText('Guarantor Sign here:', { x: 100, y: 200, size: 10, font });
  return Buffer.from(await pdf.save());
}

async function draftWithFile(bytes?: Buffer, pages = 2): Promise<string> {
  const id = await createDocument(t, { signers: [signer(0), signer(1)] });
  await attach(id, bytes ?? (await formPdf()), pages);
  return id;
}

describe('POST /api/v1/documents/{id}/fields with an anchor', () => {
  it('places a field at every occurrence, top-left at the text box, default size of the type', async () => {
    const id = await draftWithFile();
    const res = await add(id, { type: 'signature', anchor: { text: 'Sign here:' }, assignedTo: 1 });
    expect(res.status).toBe(201);
    const fields = res.body.data as any[];
    expect(fields.map((f) => f.page)).toEqual([1, 1, 2]);
    // Helvetica's ascent (0.718 em) above the baseline at y = 700 on an 842-point page.
    const [first, second, third] = fields;
    expect(first.x).toBeGreaterThan(((50 + 30) / 595) * 100); // after "Tenant  "
    expect(first.x).toBeLessThan(((50 + 50) / 595) * 100);
    expect(first.y).toBeCloseTo(((842 - 700 - 0.718 * 12) / 842) * 100, 1);
    expect(second.x).toBeCloseTo((300 / 595) * 100, 1);
    expect(second.y).toBeCloseTo(((842 - 380 - 0.718 * 12) / 842) * 100, 1);
    expect(third.y).toBeCloseTo(((842 - 200 - 0.718 * 10) / 842) * 100, 1);
    // The signature type's default size: 180 × 48 points.
    expect(first.width).toBeCloseTo((180 / 595) * 100, 2);
    expect(first.height).toBeCloseTo((48 / 842) * 100, 2);
    expect(fields.every((f) => f.assignedTo === 1 && f.type === 'signature')).toBe(true);
    const listed = await t.request('GET', `/api/v1/documents/${id}/fields`);
    expect(listed.body.data.map((f: any) => f.id)).toEqual(fields.map((f) => f.id));
    const audit = await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`);
    expect(audit.body.data.filter((a: any) => a.action === 'field.added')).toHaveLength(3);
  });

  it('takes one occurrence, offsets and a size in points', async () => {
    const id = await draftWithFile();
    const res = await add(id, {
      type: 'date',
      label: 'Landlord date',
      anchor: {
        text: 'Sign here:',
        occurrence: 2,
        offsetX: 70,
        offsetY: -4,
        width: 119,
        height: 21.05,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(1);
    const [f] = res.body.data;
    expect(f).toMatchObject({ type: 'date', label: 'Landlord date', page: 1 });
    expect(f.x).toBeCloseTo((370 / 595) * 100, 1);
    expect(f.y).toBeCloseTo(((842 - 380 - 0.718 * 12 - 4) / 842) * 100, 1);
    expect(f.width).toBeCloseTo(20, 2);
    expect(f.height).toBeCloseTo(2.5, 2);
  });

  it('treats runs of white space as equal and matches case-sensitively', async () => {
    const id = await draftWithFile();
    const spaced = await add(id, { type: 'name', anchor: { text: 'Tenant Sign  here:' } });
    expect(spaced.status).toBe(201);
    expect(spaced.body.data).toHaveLength(1);
    const cased = await add(id, { type: 'name', anchor: { text: 'sign here:' } });
    expect(cased.status).toBe(400);
    expect(cased.body.error.code).toBe('anchor_not_found');
  });

  it('answers anchor_not_found, or an empty list with ignoreIfMissing', async () => {
    const id = await draftWithFile();
    const missing = await add(id, { type: 'signature', anchor: { text: 'Witness' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'anchor_not_found',
      details: [{ path: 'body.anchor.text', message: 'does not occur in the file' }],
    });
    const beyond = await add(id, {
      type: 'signature',
      anchor: { text: 'Sign here:', occurrence: 4 },
    });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.details[0].message).toBe('occurs 3 time(s), not 4');
    const ignored = await add(id, {
      type: 'signature',
      anchor: { text: 'Witness', ignoreIfMissing: true },
    });
    expect(ignored.status).toBe(201);
    expect(ignored.body.data).toEqual([]);
    expect((await t.request('GET', `/api/v1/documents/${id}/fields`)).body.data).toEqual([]);
  });

  it('refuses a field an anchor would put off the page, a draft without a file, and mixed bodies', async () => {
    const id = await draftWithFile();
    const off = await add(id, {
      type: 'signature',
      anchor: { text: 'Landlord', offsetX: 200 },
    });
    expect(off.status).toBe(400);
    expect(off.body.error.code).toBe('validation_error');
    expect(off.body.error.details[0].path).toBe('body.anchor');
    const noFile = await createDocument(t, { signers: [signer(0)] });
    const none = await add(noFile, { type: 'signature', anchor: { text: 'Sign' } });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('missing_file');
    const mixed = await add(id, {
      type: 'signature',
      page: 1,
      x: 1,
      y: 1,
      width: 1,
      height: 1,
      anchor: { text: 'Sign here:' },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe('validation_error');
    expect((await t.request('GET', `/api/v1/documents/${id}/fields`)).body.data).toEqual([]);
  });

  it('refuses anchors once the document is sent', async () => {
    const id = await draftWithFile();
    await add(id, { type: 'signature', anchor: { text: 'Landlord' }, assignedTo: 0 });
    await add(id, { type: 'signature', anchor: { text: 'Guarantor' }, assignedTo: 1 });
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    const late = await add(id, { type: 'signature', anchor: { text: 'Landlord' } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_state');
  });

  it.skipIf(!hasChromium)(
    'finds text in a browser-printed PDF: right-to-left Hebrew and Arabic in logical order, NFKC forms',
    async () => {
      const browser = await launchBrowser();
      try {
        // The screen laid out like the printed page (595 × 842 points = 793.33 × 1122.67 CSS px).
        const page = await browser.newPage({ width: 793, height: 1123 });
        await page.emulateMedia({ media: 'print' });
        await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><style>
          @page { size: 595pt 842pt; margin: 0 }
          body { margin: 0; font: 16px 'Noto Sans', 'Noto Sans Hebrew', 'Noto Sans Arabic', sans-serif }
          p { position: absolute; margin: 0 }
        </style></head><body>
          <p dir="rtl" style="right: 60px; top: 100px">שם מלא: <span id="he">חתימה כאן</span> בבקשה</p>
          <p dir="rtl" style="right: 60px; top: 300px"><span id="ar">التوقيع هنا</span> من فضلك</p>
          <p style="left: 80px; top: 500px">Signed on <span id="fw">ＤＡＴＥ</span></p>
        </body></html>`);
        const box = (sel: string) =>
          page.locator(sel).evaluate((e) => {
            const r = e.getBoundingClientRect();
            return { left: r.left, top: r.top };
          });
        const he = await box('#he');
        const ar = await box('#ar');
        const fw = await box('#fw');
        const bytes = Buffer.from(await page.pdf({ preferCSSPageSize: true }));
        const id = await draftWithFile(bytes, 1);
        // 1 CSS px = 0.75 pt; the anchor's box is the text's, give or take its line spacing.
        const expectAt = (f: any, at: { left: number; top: number }) => {
          expect(Math.abs((f.x / 100) * 595 - at.left * 0.75)).toBeLessThan(3);
          expect(Math.abs((f.y / 100) * 842 - at.top * 0.75)).toBeLessThan(6);
        };
        const hebrew = await add(id, {
          type: 'signature',
          anchor: { text: 'חתימה כאן', width: 80, height: 20 },
        });
        expect(hebrew.status).toBe(201);
        expect(hebrew.body.data).toHaveLength(1);
        expectAt(hebrew.body.data[0], he);
        const arabic = await add(id, {
          type: 'signature',
          anchor: { text: 'التوقيع هنا', width: 80, height: 20 },
        });
        expect(arabic.status).toBe(201);
        expect(arabic.body.data).toHaveLength(1);
        expectAt(arabic.body.data[0], ar);
        // Full-width letters are the same text as ASCII after NFKC.
        const date = await add(id, { type: 'date', anchor: { text: 'DATE' } });
        expect(date.status).toBe(201);
        expect(date.body.data).toHaveLength(1);
        expectAt(date.body.data[0], fw);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
