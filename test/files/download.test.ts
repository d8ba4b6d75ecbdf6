import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../src/http/content-disposition.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, samplePdf } from '../helpers/factories.ts';
import { listen, putFile, requestUpload } from './helpers.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

async function download(docId: string, key = t.key) {
  const res = await fetch(`${base}/api/v1/documents/${docId}/download`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    json: res.headers.get('content-type')?.includes('json')
      ? JSON.parse(bytes.toString())
      : undefined,
  };
}

async function uploaded(name: string, pdf: Buffer): Promise<string> {
  const id = await createDocument(t, { name });
  expect((await putFile(base, await requestUpload(t, id), pdf)).status).toBe(200);
  return id;
}

describe('GET /api/v1/documents/{id}/download', () => {
  it('is 404 not_found before any upload', async () => {
    const id = await createDocument(t);
    const res = await download(id);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect(res.json.error.message).toMatch(/No file has been uploaded/);
  });

  it('streams the PDF with exactly the SPEC headers, and audits the download', async () => {
    const pdf = await samplePdf(2);
    const id = await uploaded('Lease 2026', pdf);
    const res = await download(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="Lease 2026 - Signed.pdf"',
    );
    expect(res.headers.get('content-length')).toBe(String(pdf.length));
    expect(res.bytes.equals(pdf)).toBe(true);
    const audit = (await t.request('GET', `/api/v1/documents/${id}/audit`)).body.data;
    expect(audit.map((a: any) => a.action)).toEqual([
      'document.created',
      'document.uploaded',
      'document.downloaded',
    ]);
    expect(audit[2]).toMatchObject({
      details: 'PDF downloaded',
      ipAddress: '127.0.0.1',
      userAgent: expect.any(String),
    });
  });

  it('answers HEAD with the headers only, without counting it as a download', async () => {
    const pdf = await samplePdf();
    const id = await uploaded('Head', pdf);
    const res = await fetch(`${base}/api/v1/documents/${id}/download`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(pdf.length));
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Head - Signed.pdf"');
    const audit = (await t.request('GET', `/api/v1/documents/${id}/audit`)).body.data;
    expect(audit.map((a: any) => a.action)).not.toContain('document.downloaded');
  });

  it('adds filename* for a non-ASCII name, with an ASCII fallback', async () => {
    const id = await uploaded('Contrat été — Zoë ✓', await samplePdf());
    const header = (await download(id)).headers.get('content-disposition')!;
    expect(header).toBe(
      `attachment; filename="Contrat ete _ Zoe _ - Signed.pdf"; filename*=UTF-8''Contrat%20%C3%A9t%C3%A9%20%E2%80%94%20Zo%C3%AB%20%E2%9C%93%20-%20Signed.pdf`,
    );
    const star = /filename\*=UTF-8''(.+)$/.exec(header)![1];
    expect(decodeURIComponent(star)).toBe('Contrat été — Zoë ✓ - Signed.pdf');
  });

  it('keeps quotes and backslashes from breaking the quoted filename', async () => {
    const id = await uploaded('He said "sign" \\ now', await samplePdf());
    const header = (await download(id)).headers.get('content-disposition')!;
    expect(header).toBe(
      `attachment; filename="He said 'sign' _ now - Signed.pdf"; filename*=UTF-8''He%20said%20%22sign%22%20%5C%20now%20-%20Signed.pdf`,
    );
  });

  it('serves the signed PDF once the document is completed', async () => {
    const original = await samplePdf(1, 'original');
    const signed = await samplePdf(2, 'signed');
    const id = await uploaded('Deal', original);
    // The signing flow is another module's; here its outcome is written as it records it.
    const key = `documents/${id}/signed-test.pdf`;
    await t.app.deps.storage.put(key, Readable.from(signed), 'application/pdf');
    await t.database.handle.db
      .updateTable('documents')
      .set({ status: 'completed', signed_file_key: key, completed_at: new Date().toISOString() })
      .where('id', '=', id)
      .execute();
    const res = await download(id);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(signed)).toBe(true);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Deal - Signed.pdf"');
    const audit = (await t.request('GET', `/api/v1/documents/${id}/audit`)).body.data;
    expect(audit.at(-1)).toMatchObject({
      action: 'document.downloaded',
      details: 'Signed PDF downloaded',
    });
  });

  it('needs documents.read and the caller’s own document', async () => {
    const id = await uploaded('Private', await samplePdf());
    const writeOnly = await t.keyWith(['documents.write']);
    const refused = await download(id, writeOnly);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('insufficient_scope');
    const other = await t.newOrg('Other');
    const foreign = await download(id, other.key);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('not_found');
    // Another organization's document cannot be given a file either.
    expect(
      (await t.request('POST', `/api/v1/documents/${id}/upload`, { key: other.key })).status,
    ).toBe(404);
    expect((await download(id, 'sk_unknown')).status).toBe(401);
  });

  it('is 404 for a deleted document', async () => {
    const id = await uploaded('Old', await samplePdf());
    expect((await t.request('DELETE', `/api/v1/documents/${id}`)).status).toBe(204);
    expect((await download(id)).status).toBe(404);
  });
});

describe('attachmentDisposition', () => {
  it('always yields a valid ASCII header that names the file exactly', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom('"', '\\', '\n', '%', "'", '*'),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
          ),
          maxLength: 60,
        }),
        (raw) => {
          const name = `${raw} - Signed.pdf`;
          const header = attachmentDisposition(name);
          expect(header).toMatch(/^[\x20-\x7e]+$/);
          const match =
            /^attachment; filename="([^"\\]*)"(?:; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]+))?$/.exec(
              header,
            );
          expect(match, header).not.toBeNull();
          // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
          const exact = name.replace(/[\u0000-\u001f\u007f]/g, '');
          // Either the quoted form is the exact name, or filename* carries it.
          expect(match![2] === undefined ? match![1] : decodeURIComponent(match![2])).toBe(exact);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('replaces a lone surrogate, which has no UTF-8 form', () => {
    expect(attachmentDisposition('a\ud800b.pdf')).toBe(
      `attachment; filename="a_b.pdf"; filename*=UTF-8''a%EF%BF%BDb.pdf`,
    );
  });
});
