import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, PDFStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, samplePdf, signer } from '../helpers/factories.ts';
import { listen, putFile, requestUpload, sampleImage, type Ticket } from './helpers.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Every stored object of a document, as paths relative to the storage root. */
function storedFiles(docId: string): string[] {
  const root = path.join(t.database.dataDir, 'files');
  const files = fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
  return files.filter((f) => f.includes(docId) && fs.statSync(path.join(root, f)).isFile());
}

async function download(docId: string, key = t.key) {
  const res = await fetch(`${base}/api/v1/documents/${docId}/download`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function auditActions(docId: string): Promise<{ action: string; details: string }[]> {
  return (await t.request('GET', `/api/v1/documents/${docId}/audit?limit=100`)).body.data;
}

describe('POST /api/v1/documents/{id}/upload', () => {
  it('answers a signed PUT URL with the defaults when the request has no body at all', async () => {
    const id = await createDocument(t);
    // Over the wire, exactly what `curl -X POST` sends: no Content-Type, no body.
    const res = await fetch(`${base}/api/v1/documents/${id}/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Ticket };
    expect(Object.keys(data).sort()).toEqual([
      'expiresIn',
      'fileKey',
      'headers',
      'method',
      'textTags',
      'uploadUrl',
    ]);
    expect(data).toMatchObject({
      textTags: false,
      expiresIn: 3600,
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf' },
    });
    expect(data.uploadUrl).toMatch(
      /^http:\/\/localhost:3000\/uploads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
    );
    expect(data.fileKey).toMatch(
      new RegExp(`^orgs/${t.orgId}/documents/${id}/[A-Za-z0-9_-]+/document\\.pdf$`),
    );
  });

  it('binds the declared type and a safe form of the filename; every ticket has its own key', async () => {
    const id = await createDocument(t);
    const a = await requestUpload(t, id, {
      filename: '../../etc/Scan été 2026.PNG',
      contentType: 'image/png',
      fileSize: 1234,
    });
    expect(a.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(a.fileKey).toMatch(
      new RegExp(`^orgs/${t.orgId}/documents/${id}/[A-Za-z0-9_-]+/etc_Scan_ete_2026\\.PNG$`),
    );
    const b = await requestUpload(t, id, {
      filename: '../../etc/Scan été 2026.PNG',
      contentType: 'image/png',
    });
    expect(b.fileKey).not.toBe(a.fileKey);
    expect(b.uploadUrl).not.toBe(a.uploadUrl);
  });

  it('refuses a declared fileSize over 50 MB with 413 and accepts exactly 50 MB', async () => {
    const id = await createDocument(t);
    const over = await t.request('POST', `/api/v1/documents/${id}/upload`, {
      body: { fileSize: 52_428_801 },
    });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
    expect(
      (
        await t.request('POST', `/api/v1/documents/${id}/upload`, {
          body: { fileSize: 52_428_800 },
        })
      ).status,
    ).toBe(200);
  });

  it('validates the body: content type, unknown fields, sizes', async () => {
    const id = await createDocument(t);
    for (const body of [
      { contentType: 'image/gif' },
      { extra: 1 },
      { fileSize: 0 },
      { fileSize: 'big' },
      { filename: '' },
    ]) {
      const res = await t.request('POST', `/api/v1/documents/${id}/upload`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('needs documents.write and the caller’s own document', async () => {
    const id = await createDocument(t);
    const readOnly = await t.keyWith(['documents.read', 'documents.create']);
    const refused = await t.request('POST', `/api/v1/documents/${id}/upload`, { key: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    const other = await t.newOrg('Other');
    const foreign = await t.request('POST', `/api/v1/documents/${id}/upload`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await t.request('POST', '/api/v1/documents/doc_nope/upload')).status).toBe(404);
  });
});

describe('PUT /uploads/{token}', () => {
  it('stores a PDF: fileSize, documentHash, page count, audit; the download returns the same bytes', async () => {
    const id = await createDocument(t, { name: 'Lease' });
    const pdf = await samplePdf(3);
    const ticket = await requestUpload(t, id, { filename: 'lease.pdf', fileSize: pdf.length });
    const res = await putFile(base, ticket, pdf);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      status: 'draft',
      fileSize: pdf.length,
      documentHash: sha256(pdf),
    });
    expect(res.body.data.signers).toEqual([]);

    const row = await t.database.handle.db
      .selectFrom('documents')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      file_key: ticket.fileKey,
      original_file_key: ticket.fileKey,
      original_content_type: 'application/pdf',
      page_count: 3,
    });
    expect(storedFiles(id)).toEqual([ticket.fileKey]);

    const file = await download(id);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(pdf)).toBe(true);
    const uploaded = (await auditActions(id)).find((a) => a.action === 'document.uploaded');
    expect(uploaded?.details).toContain(sha256(pdf));
    expect(uploaded?.details).toContain('3 page(s)');
  });

  it.each(['png', 'jpeg', 'webp'] as const)(
    'converts a %s image into a one-page PDF and keeps the original',
    async (kind) => {
      const id = await createDocument(t);
      const image = await sampleImage(kind, 300, 200);
      const ticket = await requestUpload(t, id, {
        filename: `photo.${kind}`,
        contentType: `image/${kind}`,
      });
      const res = await putFile(base, ticket, image);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ fileSize: image.length, documentHash: sha256(image) });

      const file = await download(id);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/pdf');
      const pdf = await PDFDocument.load(file.bytes);
      expect(pdf.getPageCount()).toBe(1);
      const { width, height } = pdf.getPage(0).getSize();
      expect(width / height).toBeCloseTo(1.5, 2);
      // The page draws one image of the uploaded picture's size.
      const xobjects = pdf.getPage(0).node.Resources()!.lookup(PDFName.of('XObject'), PDFDict);
      expect(xobjects.keys()).toHaveLength(1);
      const picture = xobjects.lookup(xobjects.keys()[0], PDFStream).dict;
      expect([
        picture.get(PDFName.of('Subtype'))?.toString(),
        picture.get(PDFName.of('Width'))?.toString(),
        picture.get(PDFName.of('Height'))?.toString(),
      ]).toEqual(['/Image', '300', '200']);

      const row = await t.database.handle.db
        .selectFrom('documents')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        original_file_key: ticket.fileKey,
        original_content_type: `image/${kind}`,
        page_count: 1,
      });
      expect(row.file_key).not.toBe(ticket.fileKey);
      expect(storedFiles(id).sort()).toEqual([ticket.fileKey, row.file_key].sort());
      const original = fs.readFileSync(path.join(t.database.dataDir, 'files', ticket.fileKey));
      expect(original.equals(image)).toBe(true);
    },
  );

  it('turns a JPEG upright when its EXIF orientation says it is rotated', async () => {
    const id = await createDocument(t);
    // Stored 300×200, displayed rotated 90°: the page must be portrait.
    const photo = await sharp({
      create: { width: 300, height: 200, channels: 3, background: '#204080' },
    })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const ticket = await requestUpload(t, id, { contentType: 'image/jpeg' });
    expect((await putFile(base, ticket, photo)).status).toBe(200);
    const { width, height } = (await PDFDocument.load((await download(id)).bytes))
      .getPage(0)
      .getSize();
    expect(height / width).toBeCloseTo(1.5, 2);
  });

  it('refuses bytes that are not the declared type (415) and keeps nothing of them', async () => {
    const id = await createDocument(t);
    const png = await sampleImage('png');
    const pdf = await samplePdf();
    const cases: [string, Uint8Array, RegExp][] = [
      ['application/pdf', png, /not a PDF \(they look like a PNG image\)/],
      ['image/png', pdf, /not a PNG image \(they look like a PDF\)/],
      ['image/jpeg', Buffer.from('hello, this is text'), /not a JPEG image;/],
      ['image/webp', await sampleImage('jpeg'), /not a WEBP image/],
      ['application/pdf', Buffer.alloc(0), /body is empty/],
    ];
    for (const [contentType, bytes, message] of cases) {
      const ticket = await requestUpload(t, id, { contentType });
      const res = await putFile(base, ticket, bytes);
      expect(res.status, contentType).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
      expect(res.body.error.message).toMatch(message);
    }
    expect(storedFiles(id)).toEqual([]);
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data).toMatchObject({
      fileSize: 0,
      documentHash: '',
    });
  });

  it('refuses a file that has the right signature but cannot be read (415)', async () => {
    const id = await createDocument(t);
    const brokenPdf = Buffer.from('%PDF-1.7\nthis is not really a PDF at all\n%%EOF\n');
    const png = await sampleImage('png');
    const brokenPng = Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]);
    for (const [contentType, bytes] of [
      ['application/pdf', brokenPdf],
      ['image/png', brokenPng],
    ] as const) {
      const ticket = await requestUpload(t, id, { contentType });
      const res = await putFile(base, ticket, bytes);
      expect(res.status, contentType).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
    expect(storedFiles(id)).toEqual([]);
  });

  it('requires the Content-Type bound to the URL (415)', async () => {
    const id = await createDocument(t);
    const pdf = await samplePdf();
    const ticket = await requestUpload(t, id);
    for (const headers of [
      { 'Content-Type': 'image/png' },
      { 'Content-Type': 'application/octet-stream' },
      { 'Content-Type': 'application/json' },
    ]) {
      const res = await putFile(base, ticket, pdf, headers);
      expect(res.status, headers['Content-Type']).toBe(415);
      expect(res.body.error.message).toContain('Content-Type: application/pdf');
    }
    // Parameters and case do not matter.
    expect(
      (await putFile(base, ticket, pdf, { 'Content-Type': 'Application/PDF; charset=binary' }))
        .status,
    ).toBe(200);
  });

  it('refuses a forged or garbled token with 403 and an expired one with 401', async () => {
    const id = await createDocument(t);
    const pdf = await samplePdf();
    const ticket = await requestUpload(t, id);
    const [payload, mac] = new URL(ticket.uploadUrl).pathname.split('/').at(-1)!.split('.');
    // Same signature over a payload naming a bigger size limit.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = Buffer.from(JSON.stringify({ ...claims, m: claims.m * 2 })).toString(
      'base64url',
    );
    for (const token of [
      `${tampered}.${mac}`,
      `${payload}.${mac.slice(0, -2)}AA`,
      payload,
      'nonsense',
      `${payload}.${mac}.x`,
    ]) {
      const res = await fetch(`${base}/uploads/${token}`, {
        method: 'PUT',
        headers: ticket.headers,
        body: new Uint8Array(pdf),
      });
      expect(res.status, token).toBe(403);
      expect(((await res.json()) as any).error.code).toBe('forbidden');
    }
    t.clock.advance(3600 * 1000 + 1);
    const expired = await putFile(base, ticket, pdf);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ code: 'unauthorized' });
    expect(expired.body.error.message).toMatch(/expired at .*request a new one/);
    // A new URL works at the new time.
    expect((await putFile(base, await requestUpload(t, id), pdf)).status).toBe(200);
  });

  it('replaces the file on a second upload, also through the same URL, and deletes what it replaced', async () => {
    const id = await createDocument(t);
    const first = await samplePdf(1, 'first');
    const second = await samplePdf(2, 'second');
    const third = await samplePdf(1, 'third');
    const ticket1 = await requestUpload(t, id);
    expect((await putFile(base, ticket1, first)).status).toBe(200);

    const ticket2 = await requestUpload(t, id);
    const res = await putFile(base, ticket2, second);
    expect(res.body.data).toMatchObject({ fileSize: second.length, documentHash: sha256(second) });
    expect((await download(id)).bytes.equals(second)).toBe(true);
    expect(storedFiles(id)).toEqual([ticket2.fileKey]);

    // The same URL again: a failing upload leaves the current file alone...
    const png = await sampleImage('png');
    expect((await putFile(base, ticket2, png)).status).toBe(415);
    expect((await download(id)).bytes.equals(second)).toBe(true);
    // ...and a good one replaces it.
    const again = await putFile(base, ticket2, third);
    expect(again.status).toBe(200);
    expect(again.body.data.documentHash).toBe(sha256(third));
    expect((await download(id)).bytes.equals(third)).toBe(true);
    expect(storedFiles(id)).toHaveLength(1);
    expect((await auditActions(id)).filter((a) => a.action === 'document.uploaded')).toHaveLength(
      3,
    );
  });

  it('refuses uploads once the document is no longer a draft (409 at POST and at PUT) or deleted', async () => {
    const id = await createDocument(t, { signers: [signer(1)], fields: [field()] });
    const pdf = await samplePdf();
    expect((await putFile(base, await requestUpload(t, id), pdf)).status).toBe(200);
    const late = await requestUpload(t, id);
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);

    const post = await t.request('POST', `/api/v1/documents/${id}/upload`, { body: {} });
    expect(post.status).toBe(409);
    expect(post.body.error.code).toBe('invalid_state');
    const put = await putFile(base, late, await samplePdf(1, 'late'));
    expect(put.status).toBe(409);
    expect(put.body.error.code).toBe('invalid_state');
    expect((await download(id)).bytes.equals(pdf)).toBe(true);

    const gone = await createDocument(t);
    const ticket = await requestUpload(t, gone);
    expect((await t.request('DELETE', `/api/v1/documents/${gone}`)).status).toBe(204);
    const deleted = await putFile(base, ticket, pdf);
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.code).toBe('invalid_state');
    expect(storedFiles(gone)).toEqual([]);
  });

  it('is public (no API key) but never accepts an API key in place of the token', async () => {
    const id = await createDocument(t);
    const ticket = await requestUpload(t, id);
    const res = await fetch(`${base}/uploads/`, {
      method: 'PUT',
      headers: { ...ticket.headers, authorization: `Bearer ${t.key}` },
      body: 'x',
    });
    expect(res.status).toBe(403);
  });

  it('is documented in the OpenAPI document with its binary body and answers', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    const put = spec.paths['/uploads/{token}'].put;
    expect(put.security).toEqual([]);
    expect(Object.keys(put.requestBody.content).sort()).toEqual([
      'application/pdf',
      'image/jpeg',
      'image/png',
      'image/webp',
    ]);
    expect(put.parameters.map((p: any) => p.name)).toEqual(['token']);
    expect(Object.keys(put.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    const post = spec.paths['/api/v1/documents/{id}/upload'].post;
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(['200', '404', '409', '413']),
    );
    const get = spec.paths['/api/v1/documents/{id}/download'].get;
    expect(get.responses['200'].content['application/pdf'].schema).toMatchObject({
      type: 'string',
      format: 'binary',
    });
  });
});
