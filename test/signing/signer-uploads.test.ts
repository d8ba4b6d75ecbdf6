import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePdf } from '../helpers/factories.ts';
import { pngBomb } from '../hostile/bombs.ts';
import { giveTemplateFile } from '../templates/setup.ts';
import { hasPoppler, poppler } from '../pdf/pdf-helpers.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => t.stop());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

async function put(
  token: string,
  fieldId: string,
  body: Buffer,
  contentType: string,
  filename?: string,
) {
  const q = filename ? `?filename=${encodeURIComponent(filename)}` : '';
  const raw = await t.app.inject({
    method: 'PUT',
    url: `/api/v1/signing/${token}/fields/${fieldId}/file${q}`,
    headers: { 'content-type': contentType },
    payload: body,
  });
  return { status: raw.statusCode, body: raw.json() };
}

async function docWithFileField(required = true) {
  const email = address('uploader');
  const doc = await sentDocument(t, {
    signers: [{ name: 'Uma Uploader', email }],
    fields: [
      { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 },
      {
        type: 'file',
        label: 'Proof of address',
        page: 1,
        x: 10,
        y: 30,
        width: 40,
        height: 5,
        assignedTo: 0,
        required,
      },
    ],
  });
  return {
    doc,
    token: latestToken(t, email),
    fileField: doc.fields.find((f) => f.type === 'file')!.id,
  };
}

describe('PUT /api/v1/signing/{token}/fields/{fieldId}/file', () => {
  it('stores the file, replaces it on a second PUT, and complete takes the attachment id; the detail lists it', async () => {
    const { doc, token, fileField } = await docWithFileField();
    const pdf = await samplePdf(1, 'Utility bill');
    const first = await put(token, fileField, pdf, 'application/pdf', 'bill.pdf');
    expect(first.status).toBe(200);
    expect(first.body.data.attachmentId).toMatch(/^att_/);
    const second = await put(token, fileField, PNG, 'image/png', 'Rechnung März.png');
    expect(second.status).toBe(200);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail._count.attachments).toBe(1);
    expect(detail.attachments).toEqual([
      {
        id: second.body.data.attachmentId,
        name: 'Rechnung März.png',
        contentType: 'image/png',
        fileSize: PNG.length,
        sha256: sha(PNG),
        kind: 'signer_upload',
        signerId: doc.signers[0].id,
        fieldId: fileField,
        createdAt: expect.any(String),
      },
    ]);
    const list = (await t.request('GET', '/api/v1/documents')).body.data.find(
      (d: any) => d.id === doc.id,
    );
    expect(list._count.attachments).toBe(1);

    // The replaced upload is not a value the field takes.
    const stale = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: { [fileField]: first.body.data.attachmentId }, signature: typed() },
    });
    expect(stale.status).toBe(400);
    expect(stale.body.error.details[0].path).toBe(`body.values.${fileField}`);

    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/attachments/${second.body.data.attachmentId}`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['content-disposition']).toContain(
      "filename*=UTF-8''Rechnung%20M%C3%A4rz.png",
    );
    expect(download.rawPayload.equals(PNG)).toBe(true);
    const other = await t.newOrg('Elsewhere');
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/attachments/${second.body.data.attachmentId}`,
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect(hidden.statusCode).toBe(404);

    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: { [fileField]: second.body.data.attachmentId }, signature: typed() },
    });
    expect(done.status).toBe(200);
    await t.settle();
    const after = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(after.status).toBe('completed');
    expect(
      after.fields.find((f: any) => f.id === fileField).value ?? second.body.data.attachmentId,
    ).toBe(second.body.data.attachmentId);
    // Uploads stop once the signer has finished.
    expect((await put(token, fileField, PNG, 'image/png')).status).toBeGreaterThanOrEqual(400);

    if (hasPoppler) {
      const signed = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/download`,
        headers: { authorization: `Bearer ${t.key}` },
      });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-upload-'));
      fs.writeFileSync(path.join(dir, 'signed.pdf'), signed.rawPayload);
      const text = poppler('pdftotext', [path.join(dir, 'signed.pdf'), '-']).output.replace(
        /\s+/g,
        '',
      );
      fs.rmSync(dir, { recursive: true, force: true });
      expect(text).toContain(sha(PNG));
      expect(text).toContain('RechnungMärz.png');
    }
  });

  it('requires an upload for a required file field', async () => {
    const { token, fileField } = await docWithFileField(true);
    const res = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { signature: typed() },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.path)).toContain(`body.values.${fileField}`);
  });

  it('refuses a wrong type, bytes that are not the declared type, over 10 MB, another field, and a bad token', async () => {
    const { doc, token, fileField } = await docWithFileField(false);
    expect((await put(token, fileField, PNG, 'text/plain')).status).toBe(415);
    expect((await put(token, fileField, PNG, 'application/pdf')).status).toBe(415);
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    const tooBig = await put(token, fileField, big, 'image/png');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('payload_too_large');
    const signature = doc.fields.find((f) => f.type === 'signature')!.id;
    expect((await put(token, signature, PNG, 'image/png')).status).toBe(409);
    expect((await put(token, 'fld_nope', PNG, 'image/png')).status).toBe(404);
    expect((await put('x'.repeat(43), fileField, PNG, 'image/png')).status).toBe(403);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.attachments).toEqual([]);
  });

  it('refuses an image over 25 megapixels from its header (413) and keeps nothing; a large photo within the budget is stored', async () => {
    const { doc, token, fileField } = await docWithFileField(false);
    const filesBefore = listFiles(path.join(t.app.deps.config.dataDir, 'files'));
    const bomb = await pngBomb(20_000, 20_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const refused = await put(token, fileField, bomb, 'image/png', 'bomb.png');
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('payload_too_large');
    expect(refused.body.error.message).toMatch(/20000×20000 pixels/);
    // A JPEG whose frame header declares 30000×30000 after 100 KB of metadata: read from the header all the same.
    const jpeg = await jpegDeclaring(30_000, 30_000, 100 * 1024);
    const refusedJpeg = await put(token, fileField, jpeg, 'image/jpeg', 'huge.jpg');
    expect(refusedJpeg.status).toBe(413);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.attachments).toEqual(
      [],
    );
    expect(listFiles(path.join(t.app.deps.config.dataDir, 'files'))).toEqual(filesBefore);
    const photo = await pngBomb(5000, 4000);
    expect((await put(token, fileField, photo, 'image/png', 'scan.png')).status).toBe(200);
  });

  it('is a field type of templates too', async () => {
    const res = await t.request('POST', '/api/v1/templates', {
      body: {
        name: 'With upload',
        fields: [{ type: 'file', label: 'ID scan', page: 1, x: 1, y: 1, width: 10, height: 5 }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.fields[0].type).toBe('file');
    // A campaign on it takes the visitor's upload on its public page (test/campaigns/campaign-uploads.test.ts).
    await giveTemplateFile(t, res.body.data.id);
    const campaign = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId: res.body.data.id, name: 'Uploads' },
    });
    expect(campaign.status).toBe(201);
  });
});

function listFiles(dir: string): string[] {
  return fs.existsSync(dir)
    ? (fs.readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => fs.statSync(path.join(dir, f)).isFile())
        .sort()
    : [];
}

/** A real JPEG (made by sharp) with `padding` bytes of APP1 metadata after its start, its frame header rewritten to declare `width` × `height`. */
async function jpegDeclaring(width: number, height: number, padding: number): Promise<Buffer> {
  const real = await sharp({
    create: { width: 16, height: 16, channels: 3, background: '#808080' },
  })
    .jpeg()
    .toBuffer();
  const sof = real.indexOf(Buffer.from([0xff, 0xc0]));
  real.writeUInt16BE(height, sof + 5);
  real.writeUInt16BE(width, sof + 7);
  const pads: Buffer[] = [];
  for (let left = padding; left > 0; ) {
    const n = Math.min(left, 65_000);
    const seg = Buffer.alloc(4 + n);
    seg.writeUInt16BE(0xffe1, 0);
    seg.writeUInt16BE(n + 2, 2);
    pads.push(seg);
    left -= n;
  }
  return Buffer.concat([real.subarray(0, 2), ...pads, real.subarray(2)]);
}
