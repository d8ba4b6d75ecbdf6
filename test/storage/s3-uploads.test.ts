import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { PDFDocument } from 'pdf-lib';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, samplePdf } from '../helpers/factories.ts';
import { requestUpload, sampleImage, type Ticket } from '../files/helpers.ts';
import {
  address,
  auditActions,
  latestToken,
  signingApp,
  typed,
  type SigningTest,
} from '../signing/setup.ts';
import { startS3Server, type S3Server } from './s3-server.ts';
import { operatorsPdf, pdftotext } from '../files/tagged-pdfs.ts';

// The S3 driver end to end, through the HTTP API, against a real S3-protocol server on loopback.
let server: S3Server;
let endpoint: string;
let bucket: S3Client;
let t: SigningTest;
/** A second instance on the same database and bucket, for verifications that race. */
let other: TestApp;

beforeAll(async () => {
  server = await startS3Server();
  endpoint = server.endpoint;
  const env = {
    STORAGE: 's3',
    S3_BUCKET: server.bucket,
    S3_REGION: 'us-east-1',
    S3_ENDPOINT: endpoint,
    S3_ACCESS_KEY_ID: server.accessKeyId,
    S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
  t = await signingApp(env);
  other = await buildTestApp({ env, database: t.database });
  bucket = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
});

afterAll(async () => {
  for (const app of [other, t]) app.app.deps.storage.destroy?.();
  await other.close();
  await t.stop();
  bucket.destroy();
  await server.close();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Step 2 as a client does it: exactly the returned method and headers, straight to the bucket. */
async function put(ticket: Ticket, bytes: Uint8Array): Promise<number> {
  const res = await fetch(ticket.uploadUrl, {
    method: ticket.method,
    headers: ticket.headers,
    body: new Uint8Array(bytes),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Every object of the bucket that belongs to a document. */
async function objectsOf(docId: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await bucket.send(
      new ListObjectsV2Command({ Bucket: server.bucket, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((o) => o.Key!).filter((k) => k.includes(docId)));
    token = page.NextContinuationToken;
  } while (token);
  return keys.sort();
}

async function objectBytes(key: string): Promise<Buffer> {
  const out = await bucket.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

async function fileColumns(docId: string) {
  return t.database.handle.db
    .selectFrom('documents')
    .select(['file_key', 'original_file_key', 'signed_file_key'])
    .where('id', '=', docId)
    .executeTakeFirstOrThrow();
}

const detail = (id: string, app: TestApp = t) =>
  app.request('GET', `/api/v1/documents/${id}`, { key: t.key });

async function download(id: string) {
  const res = await t.request('GET', `/api/v1/documents/${id}/download`);
  return { status: res.status, body: res.body, bytes: res.raw.rawPayload };
}

describe('POST /api/v1/documents/{id}/upload with STORAGE=s3', () => {
  it('answers a presigned PUT to the bucket for a fresh key, with Content-Type signed into it', async () => {
    const id = await createDocument(t);
    const a = await requestUpload(t, id, { filename: 'lease.pdf' });
    expect(a).toMatchObject({
      method: 'PUT',
      expiresIn: 3600,
      headers: { 'Content-Type': 'application/pdf' },
    });
    expect(a.fileKey).toMatch(
      new RegExp(`^incoming/orgs/${t.orgId}/documents/${id}/[A-Za-z0-9_-]+/lease\\.pdf$`),
    );
    const url = new URL(a.uploadUrl);
    expect(`${url.protocol}//${url.host}`).toBe(endpoint);
    expect(url.pathname).toBe(`/${server.bucket}/${a.fileKey}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-type');
    // A checksum in the URL would be that of an empty body, which AWS holds the real bytes to.
    expect(
      [...url.searchParams.keys()].filter((k) => k.toLowerCase().startsWith('x-amz-checksum')),
    ).toEqual([]);
    const b = await requestUpload(t, id, { filename: 'lease.pdf', contentType: 'image/png' });
    expect(b.fileKey).not.toBe(a.fileKey);
    expect(b.headers).toEqual({ 'Content-Type': 'image/png' });
  });
});

describe('a PDF PUT straight to the bucket', () => {
  it('is verified on the next read: fileSize, documentHash and page count appear; the download returns the bytes', async () => {
    const id = await createDocument(t, { name: 'Lease' });
    const pdf = await samplePdf(3);
    const ticket = await requestUpload(t, id, { filename: 'lease.pdf', fileSize: pdf.length });
    expect(await put(ticket, pdf)).toBe(200);

    // Lists do not verify (documented): the item still shows no file.
    const listed = (await t.request('GET', '/api/v1/documents?search=lease')).body.data.find(
      (d: { id: string }) => d.id === id,
    );
    expect(listed.fileSize).toBe(0);

    const res = await detail(id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ fileSize: pdf.length, documentHash: sha256(pdf) });
    const uploaded = (
      await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`)
    ).body.data.filter((e: { action: string }) => e.action === 'document.uploaded');
    expect(uploaded).toHaveLength(1);
    expect(uploaded[0].details).toContain(sha256(pdf));
    expect(uploaded[0].details).toContain('3 page(s)');

    // The bytes now live under a key only Signet writes; what the client sent is gone.
    const columns = await fileColumns(id);
    expect(columns.file_key).toMatch(
      new RegExp(`^orgs/${t.orgId}/documents/${id}/[A-Za-z0-9_-]+/lease\\.pdf$`),
    );
    expect(await objectsOf(id)).toEqual([columns.file_key]);
    expect((await objectBytes(columns.file_key!)).equals(pdf)).toBe(true);

    const file = await download(id);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(pdf)).toBe(true);
  });

  it('a second PUT to a URL already verified changes nothing', async () => {
    const id = await createDocument(t);
    const first = await samplePdf(1, 'First');
    const ticket = await requestUpload(t, id);
    await put(ticket, first);
    expect((await detail(id)).body.data.documentHash).toBe(sha256(first));
    expect(await put(ticket, await samplePdf(2, 'Second'))).toBe(200);
    expect((await detail(id)).body.data).toMatchObject({
      fileSize: first.length,
      documentHash: sha256(first),
    });
    expect((await download(id)).bytes.equals(first)).toBe(true);
  });

  it('is verified once when two instances read the document at the same moment', async () => {
    const id = await createDocument(t);
    const pdf = await samplePdf(2);
    await put(await requestUpload(t, id), pdf);
    const replies = await Promise.all([
      detail(id),
      detail(id, other),
      detail(id),
      detail(id, other),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const r of replies)
      expect(r.body.data).toMatchObject({ fileSize: pdf.length, documentHash: sha256(pdf) });
    expect((await auditActions(t, id)).filter((a) => a === 'document.uploaded')).toHaveLength(1);
    // The copies made by the losing verifications were removed.
    expect(await objectsOf(id)).toEqual([(await fileColumns(id)).file_key]);
  });

  it('replaces an earlier file; a newer upload URL first settles the bytes sent to the previous one', async () => {
    const id = await createDocument(t);
    const first = await samplePdf(1, 'First');
    const second = await samplePdf(1, 'Second');
    await put(await requestUpload(t, id), first);
    // Never read in between: asking for the next URL records the first file.
    const next = await requestUpload(t, id);
    expect((await auditActions(t, id)).filter((a) => a === 'document.uploaded')).toHaveLength(1);
    const firstKey = (await fileColumns(id)).file_key!;
    expect((await objectBytes(firstKey)).equals(first)).toBe(true);

    await put(next, second);
    expect((await detail(id)).body.data.documentHash).toBe(sha256(second));
    const columns = await fileColumns(id);
    expect(await objectsOf(id)).toEqual([columns.file_key]);
    expect((await download(id)).bytes.equals(second)).toBe(true);
  });

  it('bytes sent to a URL that a newer one replaced are never used', async () => {
    const id = await createDocument(t);
    const stale = await requestUpload(t, id);
    const fresh = await requestUpload(t, id);
    await put(stale, await samplePdf(1, 'Stale'));
    const pdf = await samplePdf(1, 'Fresh');
    await put(fresh, pdf);
    expect((await detail(id)).body.data.documentHash).toBe(sha256(pdf));
  });
});

describe('a PDF with text tags PUT straight to the bucket', () => {
  it('has its tags read when it is verified: fields made, the file signers see stored without them', async () => {
    const id = await createDocument(t, {
      name: 'Tagged',
      signers: [
        { name: 'Ada', email: 'ada@example.test' },
        { name: 'Bob', email: 'bob@example.test' },
      ],
    });
    const pdf = operatorsPdf();
    const ticket = await requestUpload(t, id, { filename: 'tagged.pdf', textTags: true });
    expect(ticket).toMatchObject({ textTags: true });
    expect(await put(ticket, pdf)).toBe(200);
    const res = await detail(id);
    expect(res.body.data.documentHash).toBe(sha256(pdf));
    expect(res.body.data.fields.map((f: { type: string }) => f.type)).toEqual([
      'initials',
      'text',
      'date',
    ]);
    expect(res.body.data.warnings).toEqual([]);
    const columns = await fileColumns(id);
    expect(columns.file_key).toBe(`${columns.original_file_key}.without-tags.pdf`);
    expect(await objectsOf(id)).toEqual([columns.original_file_key, columns.file_key].sort());
    expect((await objectBytes(columns.original_file_key!)).equals(pdf)).toBe(true);
    const text = await pdftotext((await download(id)).bytes);
    if (text !== null) {
      expect(text).not.toContain('{{');
      expect(text).toContain('end of line');
    }
  });
});

describe('an image PUT straight to the bucket', () => {
  it('becomes a one-page PDF written to the bucket next to the original', async () => {
    const id = await createDocument(t);
    const png = await sampleImage('png', 300, 200);
    await put(await requestUpload(t, id, { filename: 'scan.png', contentType: 'image/png' }), png);
    expect((await detail(id)).body.data).toMatchObject({
      fileSize: png.length,
      documentHash: sha256(png),
    });

    const columns = await fileColumns(id);
    expect(columns.file_key).toBe(`${columns.original_file_key}.pdf`);
    expect(await objectsOf(id)).toEqual([columns.original_file_key, columns.file_key].sort());
    expect((await objectBytes(columns.original_file_key!)).equals(png)).toBe(true);

    const file = await download(id);
    expect(file.status).toBe(200);
    const pdf = await PDFDocument.load(file.bytes);
    expect(pdf.getPageCount()).toBe(1);
    const { width, height } = pdf.getPage(0).getSize();
    expect(width / height).toBeCloseTo(1.5, 2);
    expect(file.bytes.equals(await objectBytes(columns.file_key!))).toBe(true);
  });
});

describe('objects that are refused', () => {
  it('PNG bytes declared as application/pdf: 415 on the read that finds them, the object is deleted, the document has no file', async () => {
    const id = await createDocument(t);
    await put(await requestUpload(t, id), await sampleImage('png'));
    const res = await detail(id);
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    expect(res.body.error.message).toMatch(/not a PDF \(they look like a PNG image\)/);
    expect(await objectsOf(id)).toEqual([]);
    expect((await detail(id)).body.data).toMatchObject({ fileSize: 0, documentHash: '' });
    expect(await auditActions(t, id)).toContain('document.upload_refused');
    expect((await download(id)).status).toBe(404);
  });

  it('a refusal found by a download or a send answers that request; an earlier file stays', async () => {
    const id = await createDocument(t, {
      signers: [{ name: 'Ada', email: address('refused') }],
      fields: [field({ assignedTo: 0 })],
    });
    const good = await samplePdf();
    await put(await requestUpload(t, id), good);
    expect((await detail(id)).status).toBe(200);

    await put(await requestUpload(t, id), Buffer.from('plain text, not a PDF'));
    const file = await download(id);
    expect(file.status).toBe(415);
    expect(file.body.error.code).toBe('unsupported_media_type');

    await put(await requestUpload(t, id, { contentType: 'image/jpeg' }), await sampleImage('png'));
    const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
    expect(sent.status).toBe(415);
    expect((await detail(id)).body.data).toMatchObject({
      status: 'draft',
      documentHash: sha256(good),
    });
    expect((await download(id)).bytes.equals(good)).toBe(true);
  });

  it('an object over 50 MB is refused with 413 and deleted', async () => {
    const id = await createDocument(t);
    const big = Buffer.alloc(50 * 1024 * 1024 + 1);
    big.write('%PDF-1.7\n', 'latin1');
    expect(await put(await requestUpload(t, id), big)).toBe(200);
    const res = await detail(id);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(await objectsOf(id)).toEqual([]);
    expect((await detail(id)).body.data.fileSize).toBe(0);
  });

  it('an object over the declared fileSize is refused with 413', async () => {
    const id = await createDocument(t);
    const pdf = await samplePdf();
    await put(await requestUpload(t, id, { fileSize: pdf.length - 1 }), pdf);
    const res = await detail(id);
    expect(res.status).toBe(413);
    expect(await objectsOf(id)).toEqual([]);
  });
});

describe('before the object arrives', () => {
  it('the document has no file: send is 409 missing_file, download 404', async () => {
    const id = await createDocument(t, {
      signers: [{ name: 'Ada', email: address('early') }],
      fields: [field({ assignedTo: 0 })],
    });
    const ticket = await requestUpload(t, id);
    expect((await detail(id)).body.data).toMatchObject({ fileSize: 0, documentHash: '' });
    const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
    expect(sent.status).toBe(409);
    expect(sent.body.error.code).toBe('missing_file');
    expect((await download(id)).status).toBe(404);

    // The URL still works: the bytes are taken on the next use.
    const pdf = await samplePdf();
    await put(ticket, pdf);
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    expect((await detail(id)).body.data).toMatchObject({
      status: 'pending',
      documentHash: sha256(pdf),
    });
  });

  it('an upload whose object never came is forgotten an hour after its URL expired', async () => {
    const id = await createDocument(t);
    const ticket = await requestUpload(t, id);
    t.clock.advance(2 * 3600 * 1000 + 1000);
    expect((await detail(id)).status).toBe(200);
    await put(ticket, await samplePdf());
    expect((await detail(id)).body.data.fileSize).toBe(0);
  });
});

describe('signing a file that came straight to the bucket', () => {
  it('sends after verification and stores the signed PDF in the bucket once completed', async () => {
    const email = address('s3-signer');
    const id = await createDocument(t, {
      name: 'Bucket agreement',
      signers: [{ name: 'Ada', email }],
      fields: [field({ assignedTo: 0 })],
    });
    const pdf = await samplePdf(2);
    await put(await requestUpload(t, id, { filename: 'agreement.pdf' }), pdf);
    // No read in between: the send verifies.
    const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
    expect(sent.status).toBe(200);
    await t.settle();

    const signed = await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
      key: null,
      body: { signature: typed() },
    });
    expect(signed.status).toBe(200);
    await t.settle();

    const doc = (await detail(id)).body.data;
    expect(doc).toMatchObject({
      status: 'completed',
      documentHash: sha256(pdf),
      fileSize: pdf.length,
    });
    const columns = await fileColumns(id);
    expect(await objectsOf(id)).toEqual([columns.file_key, columns.signed_file_key].sort());
    const inBucket = await objectBytes(columns.signed_file_key!);
    expect(inBucket.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(sha256(inBucket)).toBe(doc.signedFileHash);
    const file = await download(id);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(inBucket)).toBe(true);
    // Everyone got the signed copy, read from the bucket.
    const mail = t.sink.to(email).at(-1)!;
    expect(sha256(mail.attachments[0].content)).toBe(doc.signedFileHash);
  });
});

describe('POST /api/v1/templates/{id}/upload with STORAGE=s3', () => {
  it("is received by Signet's own URL, checked, and stored in the bucket; documents made from the template copy it there", async () => {
    const templateId = (
      await t.request('POST', '/api/v1/templates', { body: { name: 'Bucket lease' } })
    ).body.data.id as string;
    const ticket = (
      await t.request('POST', `/api/v1/templates/${templateId}/upload`, {
        body: { filename: 'lease.pdf' },
      })
    ).body.data as Ticket;
    expect(ticket.uploadUrl).toMatch(
      /^http:\/\/localhost:3000\/uploads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
    );
    const pdf = await samplePdf(2);
    const put = (bytes: Uint8Array) =>
      t.app.inject({
        method: 'PUT',
        url: new URL(ticket.uploadUrl).pathname,
        headers: { 'content-type': 'application/pdf' },
        payload: Buffer.from(bytes),
      });
    const refused = await put(await sampleImage('png'));
    expect(refused.statusCode).toBe(415);
    expect(await objectsOf(templateId)).toEqual([]);

    const res = await put(pdf);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      id: templateId,
      fileSize: pdf.length,
      pageCount: 2,
      documentHash: sha256(pdf),
    });
    const stored = await objectsOf(templateId);
    expect(stored).toEqual([ticket.fileKey]);
    expect(sha256(await objectBytes(ticket.fileKey))).toBe(sha256(pdf));

    const docId = (
      await t.request('POST', '/api/v1/documents', {
        body: { name: 'From the bucket', templateId },
      })
    ).body.data.id as string;
    expect(await objectsOf(docId)).toHaveLength(1);
    const file = await download(docId);
    expect(file.status).toBe(200);
    expect(sha256(file.bytes)).toBe(sha256(pdf));
  });
});
