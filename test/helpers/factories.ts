import type { TestApp } from './build-test-app.ts';

/** Creates a draft document through the API and returns its id. */
export async function createDocument(
  t: TestApp,
  body: Record<string, unknown> = {},
  key?: string,
): Promise<string> {
  const res = await t.request('POST', '/api/v1/documents', {
    body: { name: 'Contract', ...body },
    key,
  });
  if (res.status !== 201)
    throw new Error(`createDocument: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

export const signer = (n: number, extra: Record<string, unknown> = {}) => ({
  name: `Signer ${n}`,
  email: `signer${n}@example.test`,
  ...extra,
});

export const field = (extra: Record<string, unknown> = {}) => ({
  type: 'signature',
  page: 1,
  x: 10,
  y: 10,
  width: 20,
  height: 5,
  ...extra,
});

/** A minimal valid one-page PDF, made by pdf-lib. */
export async function samplePdf(pages = 1, text = 'Hello'): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = pdf.addPage([595, 842]);
    page.drawText(`${text} ${i + 1}`, { x: 50, y: 780, size: 18, font });
  }
  return Buffer.from(await pdf.save());
}
