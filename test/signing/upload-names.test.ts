import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePdf } from '../helpers/factories.ts';
import { address, latestToken, sentDocument, signingApp, type SigningTest } from './setup.ts';

/*
 * A signer's file keeps a name whose extension is that of the type its bytes were checked to be:
 * whoever downloads it gets a file their computer opens as what it is. (A campaign visitor's file
 * goes through the same intake, signing/signer-uploads.ts intakeFieldFile.)
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => t.stop());

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

const fileFields = [
  { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 },
  {
    type: 'file',
    label: 'Proof',
    page: 1,
    x: 10,
    y: 30,
    width: 40,
    height: 5,
    assignedTo: 0,
    required: false,
  },
];

describe("an uploaded file's name", () => {
  it('ends in the extension of its checked type, whatever the signer called it', async () => {
    const email = address('names');
    const doc = await sentDocument(t, { signers: [{ name: 'Nina', email }], fields: fileFields });
    const token = latestToken(t, email);
    const field = doc.fields.find((f) => f.type === 'file')?.id;
    const pdf = await samplePdf();
    const cases: [Buffer, string, string, string][] = [
      [pdf, 'application/pdf', 'invoice.html', 'invoice.pdf'],
      [pdf, 'application/pdf', 'invoice.PDF', 'invoice.PDF'],
      [pdf, 'application/pdf', 'contract', 'contract.pdf'],
      [pdf, 'application/pdf', 'run.pdf.exe', 'run.pdf.pdf'],
      [PNG, 'image/png', 'photo.svg', 'photo.png'],
      [PNG, 'image/png', 'Rechnung März.png', 'Rechnung März.png'],
    ];
    for (const [bytes, type, chosen, kept] of cases) {
      const put = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/signing/${token}/fields/${field}/file?filename=${encodeURIComponent(chosen)}`,
        headers: { 'content-type': type },
        payload: bytes,
      });
      expect(put.statusCode, chosen).toBe(200);
      const id = put.json().data.attachmentId;
      const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
      expect(detail.attachments.find((a: { id: string }) => a.id === id)?.name, chosen).toBe(kept);
      const download = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/attachments/${id}`,
        headers: { authorization: `Bearer ${t.key}` },
      });
      expect(decodeURIComponent(String(download.headers['content-disposition'])), chosen).toContain(
        kept,
      );
    }
  });
});
