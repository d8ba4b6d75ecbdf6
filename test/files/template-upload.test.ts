import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { copyTemplateFile } from '../../src/modules/templates/template-copy.ts';
import { createTemplate } from '../templates/setup.ts';
import { listen, putFile, sampleImage, type Ticket } from './helpers.ts';

// `POST /api/v1/templates/{id}/upload` and the PUT of its bytes, over real HTTP, local driver.
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function templateTicket(
  id: string,
  body?: Record<string, unknown>,
  key?: string,
): Promise<Ticket> {
  const res = await t.request('POST', `/api/v1/templates/${id}/upload`, { body, key });
  if (res.status !== 200)
    throw new Error(`template upload ticket: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Ticket;
}

/** Every stored object of a template, relative to the storage root. */
function storedFiles(templateId: string): string[] {
  const root = path.join(t.database.dataDir, 'files');
  const files = fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
  return files
    .filter((f) => f.includes(templateId) && fs.statSync(path.join(root, f)).isFile())
    .sort();
}

async function download(docId: string): Promise<Buffer> {
  const res = await fetch(`${base}/api/v1/documents/${docId}/download`, {
    headers: { authorization: `Bearer ${t.key}` },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function documentFrom(templateId: string): Promise<string> {
  const res = await t.request('POST', '/api/v1/documents', {
    body: { name: 'From template', templateId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}

describe('POST /api/v1/templates/{id}/upload', () => {
  it('answers a signed PUT URL of Signet, bound to the template, with the defaults when there is no body', async () => {
    const id = await createTemplate(t);
    const res = await fetch(`${base}/api/v1/templates/${id}/upload`, {
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
      new RegExp(`^orgs/${t.orgId}/templates/${id}/[A-Za-z0-9_-]+/document\\.pdf$`),
    );
    const png = await templateTicket(id, {
      filename: '../Plan été.png',
      contentType: 'image/png',
      fileSize: 10,
    });
    expect(png.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(png.fileKey).toMatch(/\/Plan_ete\.png$/);
  });

  it('validates the body, needs templates.write and the caller’s own template', async () => {
    const id = await createTemplate(t);
    const big = await t.request('POST', `/api/v1/templates/${id}/upload`, {
      body: { fileSize: 50 * 1024 * 1024 + 1 },
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    for (const body of [{ contentType: 'text/plain' }, { fileSize: -1 }, { surprise: true }]) {
      const res = await t.request('POST', `/api/v1/templates/${id}/upload`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    const reader = await t.keyWith(['templates.read']);
    const refused = await t.request('POST', `/api/v1/templates/${id}/upload`, { key: reader });
    expect(refused.status).toBe(403);
    const other = await t.newOrg('Other');
    const foreign = await t.request('POST', `/api/v1/templates/${id}/upload`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect((await t.request('POST', '/api/v1/templates/tpl_missing/upload')).status).toBe(404);
  });
});

describe('PUT /uploads/{token} of a template', () => {
  it('stores the PDF: fileSize, pageCount, documentHash; documents made from the template get the same file', async () => {
    const id = await createTemplate(t, {
      roles: [{ name: 'Tenant' }],
      fields: [field({ label: 'Signature', page: 2 })],
    });
    const pdf = await samplePdf(3, 'Lease template');
    const ticket = await templateTicket(id);
    const res = await putFile(base, ticket, pdf);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      fileSize: pdf.length,
      pageCount: 3,
      documentHash: sha256(pdf),
      _count: { roles: 1, fields: 1 },
    });
    expect(res.body.data.roles).toHaveLength(1);
    const detail = await t.request('GET', `/api/v1/templates/${id}`);
    expect(detail.body.data).toMatchObject({
      fileSize: pdf.length,
      pageCount: 3,
      documentHash: sha256(pdf),
    });
    expect(storedFiles(id)).toHaveLength(1);

    const docId = await documentFrom(id);
    const doc = await t.request('GET', `/api/v1/documents/${docId}`);
    expect(doc.body.data).toMatchObject({
      templateId: id,
      fileSize: pdf.length,
      documentHash: sha256(pdf),
    });
    expect(sha256(await download(docId))).toBe(sha256(pdf));
  });

  it('turns an image into a one-page PDF, which documents made from the template download', async () => {
    const id = await createTemplate(t);
    const png = await sampleImage('png');
    const res = await putFile(
      base,
      await templateTicket(id, { contentType: 'image/png', filename: 'form.png' }),
      png,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      fileSize: png.length,
      pageCount: 1,
      documentHash: sha256(png),
    });
    expect(storedFiles(id)).toHaveLength(2); // the PNG as sent, and its PDF
    const bytes = await download(await documentFrom(id));
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(1);
  });

  it('refuses bytes that are not the declared type (415) and a wrong Content-Type; the template keeps its file', async () => {
    const id = await createTemplate(t);
    const pdf = await samplePdf(1);
    expect((await putFile(base, await templateTicket(id), pdf)).status).toBe(200);
    const before = storedFiles(id);

    const png = await sampleImage('png');
    const wrongBytes = await putFile(base, await templateTicket(id), png);
    expect(wrongBytes.status).toBe(415);
    expect(wrongBytes.body.error.code).toBe('unsupported_media_type');
    const ticket = await templateTicket(id);
    const wrongHeader = await putFile(base, ticket, pdf, { 'Content-Type': 'image/png' });
    expect(wrongHeader.status).toBe(415);

    const detail = await t.request('GET', `/api/v1/templates/${id}`);
    expect(detail.body.data).toMatchObject({ fileSize: pdf.length, documentHash: sha256(pdf) });
    expect(storedFiles(id)).toEqual(before);
  });

  it('replaces the file on a second upload and deletes the old one; documents made before keep their copy', async () => {
    const id = await createTemplate(t);
    const first = await samplePdf(1, 'First version');
    const ticket = await templateTicket(id);
    expect((await putFile(base, ticket, first)).status).toBe(200);
    const firstObjects = storedFiles(id);
    const before = await documentFrom(id);

    const second = await samplePdf(2, 'Second version');
    // The same URL again: the first file stays intact until the second has fully arrived.
    const res = await putFile(base, ticket, second);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ pageCount: 2, documentHash: sha256(second) });
    const now = storedFiles(id);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(firstObjects);

    expect(sha256(await download(before))).toBe(sha256(first));
    expect(sha256(await download(await documentFrom(id)))).toBe(sha256(second));
  });

  it('a document made while the file is being replaced copies the new file, not the deleted old one', async () => {
    const id = await createTemplate(t);
    const first = await samplePdf(1, 'Old');
    expect((await putFile(base, await templateTicket(id), first)).status).toBe(200);
    // The template as a document creation read it, just before a new upload replaced its file.
    const stale = await t.database.handle.db
      .selectFrom('templates')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const second = await samplePdf(2, 'New');
    expect((await putFile(base, await templateTicket(id), second)).status).toBe(200);
    const copy = await copyTemplateFile(t.app.deps, stale, 'doc_racing');
    expect(copy.columns).toMatchObject({ document_hash: sha256(second), page_count: 2 });
    const bytes: Buffer[] = [];
    for await (const chunk of await t.app.deps.storage.get(copy.columns.file_key!))
      bytes.push(chunk as Buffer);
    expect(sha256(Buffer.concat(bytes))).toBe(sha256(second));
    await Promise.all(copy.written.map((key) => t.app.deps.storage.delete(key)));
  });

  it('is refused once the template was deleted (409), and the bytes are not kept', async () => {
    const id = await createTemplate(t);
    const ticket = await templateTicket(id);
    expect((await t.request('DELETE', `/api/v1/templates/${id}`)).status).toBe(204);
    const res = await putFile(base, ticket, await samplePdf(1));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
    expect(storedFiles(id)).toEqual([]);
  });

  it('an expired URL is 401 and names the template endpoint; a token tampered into a template grant is 403', async () => {
    const id = await createTemplate(t);
    const ticket = await templateTicket(id);
    t.clock.advance(3600 * 1000);
    const expired = await putFile(base, ticket, await samplePdf(1));
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toContain(`/api/v1/templates/${id}/upload`);

    const docId = (await t.request('POST', '/api/v1/documents', { body: { name: 'Doc' } })).body
      .data.id as string;
    const docTicket = (await t.request('POST', `/api/v1/documents/${docId}/upload`)).body
      .data as Ticket;
    const [payload, mac] = new URL(docTicket.uploadUrl).pathname.split('/').at(-1)!.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, d: id, s: 't' })).toString('base64url')}.${mac}`;
    const res = await putFile(
      base,
      { ...docTicket, uploadUrl: `http://localhost:3000/uploads/${forged}` },
      await samplePdf(1),
    );
    expect(res.status).toBe(403);
    expect((await t.request('GET', `/api/v1/templates/${id}`)).body.data.fileSize).toBe(0);
  });

  it('gives the template what a campaign needs: a campaign can be created once the file arrived', async () => {
    const id = await createTemplate(t, {
      roles: [{ name: 'Applicant' }],
      fields: [field({ label: 'Signature' })],
    });
    const without = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId: id, name: 'Signup' },
    });
    expect(without.status).toBe(409);
    expect((await putFile(base, await templateTicket(id), await samplePdf(1))).status).toBe(200);
    const created = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId: id, name: 'Signup' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const op = doc.paths['/api/v1/templates/{id}/upload'].post;
    expect(op.operationId).toBe('requestTemplateUpload');
    expect(op.description).toContain("Signet's own");
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '413']));
  });
});
