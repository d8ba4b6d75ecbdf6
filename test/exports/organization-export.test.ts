import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { purgeExpired } from '../../src/modules/retention/retention.ts';
import { completedDocument } from '../backup/support.ts';
import { signingApp, type SigningTest } from '../signing/setup.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';

/*
 * POST /api/v1/organization/exports: a job writes a ZIP of every document into storage; GET shows
 * its progress and a download link that needs no key, valid 24 hours; the ZIP holds each
 * document's files under UTF-8 names; `organization.export.completed` is delivered.
 */

let t: SigningTest;
let receiver: Receiver;
let docId: string;
const NAME = 'Zoë’s lease — 2026/№1';
const ATTACHMENT = 'Reçu d’identité.pdf';

beforeAll(async () => {
  receiver = await startReceiver();
  t = await signingApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  await t.request('POST', '/api/v1/webhooks', {
    body: { url: receiver.url, events: ['organization.export.completed'] },
  });
  docId = await completedDocument(t, 'zoe-export@example.test', NAME);
  // A signer's upload, stored as the signing page stores one (that flow is tested in test/signing).
  const bytes = Buffer.from('%PDF-1.4 attachment');
  await t.app.deps.storage.put(
    `attachments/${docId}/a.pdf`,
    Readable.from(bytes),
    'application/pdf',
  );
  await t.database.handle.db
    .insertInto('attachments')
    .values({
      id: 'att_export1',
      document_id: docId,
      name: ATTACHMENT,
      file_key: `attachments/${docId}/a.pdf`,
      content_type: 'application/pdf',
      file_size: bytes.length,
      created_at: new Date().toISOString(),
      kind: 'signer_upload',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      signer_id: null,
      field_id: null,
    })
    .execute();
  await t.request('POST', '/api/v1/documents', { body: { name: 'Draft without a file' } });
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

function unzip(zip: Buffer): Promise<Map<string, { bytes: Buffer; utf8: boolean }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err);
      const out = new Map<string, { bytes: Buffer; utf8: boolean }>();
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, {
              bytes: Buffer.concat(chunks),
              utf8: (entry.generalPurposeBitFlag & 0x800) !== 0,
            });
            file.readEntry();
          });
        });
      });
      file.on('end', () => resolve(out));
      file.readEntry();
    });
  });
}

describe('organization exports', () => {
  let exportId: string;
  let downloadPath: string;

  it('needs the organization.export scope', async () => {
    const key = await t.keyWith(['organization.read', 'documents.read']);
    const res = await t.request('POST', '/api/v1/organization/exports', { key });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope' });
  });

  it('is queued (202), one at a time, then written by the job: progress, size, a link', async () => {
    const created = await t.request('POST', '/api/v1/organization/exports', { body: {} });
    expect(created.status).toBe(202);
    expect(created.body.data).toMatchObject({
      status: 'queued',
      totalDocuments: 2,
      processedDocuments: 0,
      downloadUrl: null,
    });
    exportId = created.body.data.id;
    const again = await t.request('POST', '/api/v1/organization/exports');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('limit_reached');

    await t.settle();
    const done = (await t.request('GET', `/api/v1/organization/exports/${exportId}`)).body.data;
    expect(done).toMatchObject({
      id: exportId,
      status: 'completed',
      totalDocuments: 2,
      processedDocuments: 2,
      fileSize: expect.any(Number),
      error: null,
    });
    expect(Date.parse(done.expiresAt) - Date.parse(done.completedAt)).toBe(24 * 3_600_000);
    const url = new URL(done.downloadUrl);
    expect(url.origin).toBe('http://localhost:3000');
    downloadPath = url.pathname + url.search;

    await t.app.deliveries.drain();
    const delivered = await waitFor(
      () =>
        receiver.received.find(
          (r) => r.headers['x-service-event'] === 'organization.export.completed',
        ),
      'organization.export.completed',
    );
    expect(JSON.parse(delivered.body).data).toEqual(done);
  }, 60_000);

  it("the ZIP holds each document's files under its UTF-8 name, streamed without a key", async () => {
    const res = await t.app.inject({ method: 'GET', url: downloadPath });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="signet-export-/);
    const zip = res.rawPayload;
    const meta = (await t.request('GET', `/api/v1/organization/exports/${exportId}`)).body.data;
    expect(zip.length).toBe(meta.fileSize);
    const entries = await unzip(zip);
    const folder = `Zoë’s lease — 2026_№1 (${docId})`;
    const signed = (await t.request('GET', `/api/v1/documents/${docId}/download`)).raw.rawPayload;
    const audit = (await t.request('GET', `/api/v1/documents/${docId}/audit?limit=100`)).body.data;
    expect(entries.get(`${folder}/signed.pdf`)?.bytes.equals(signed)).toBe(true);
    expect(entries.get(`${folder}/original.pdf`)?.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(JSON.parse(String(entries.get(`${folder}/audit-log.json`)?.bytes))).toEqual(
      audit.filter((a: { action: string }) => a.action !== 'document.downloaded'),
    );
    expect(entries.get(`${folder}/attachments/${ATTACHMENT}`)?.bytes.toString()).toBe(
      '%PDF-1.4 attachment',
    );
    expect(JSON.parse(String(entries.get(`${folder}/document.json`)?.bytes))).toMatchObject({
      id: docId,
      name: NAME,
      status: 'completed',
    });
    expect(entries.get('signing-certificate.pem')?.bytes.toString()).toMatch(
      /^-----BEGIN CERTIFICATE-----\n/,
    );
    expect([...entries.keys()].filter((n) => n.startsWith('Draft without a file'))).toEqual([
      expect.stringMatching(/^Draft without a file \(doc_\w+\)\/document.json$/),
      expect.stringMatching(/^Draft without a file \(doc_\w+\)\/audit-log.json$/),
    ]);
    for (const [name, entry] of entries)
      expect(entry.utf8 || /^[\x20-\x7e]+$/.test(name), name).toBe(true);
  }, 60_000);

  it('a forged token is refused; the link expires after 24 hours and the ZIP is deleted', async () => {
    // One character of the signature changed (to another one: it may already have been an A).
    const forged = downloadPath.replace(
      /token=(\d+)\.(\w)/,
      (_, expires: string, c: string) => `token=${expires}.${c === 'A' ? 'B' : 'A'}`,
    );
    expect((await t.app.inject({ method: 'GET', url: forged })).statusCode).toBe(403);
    t.clock.advance(24 * 3_600_000 + 1);
    const expired = await t.app.inject({ method: 'GET', url: downloadPath });
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/^This download link expired at /),
    });
    expect((await purgeExpired(t.app.deps)).exports).toBe(1);
    const after = (await t.request('GET', `/api/v1/organization/exports/${exportId}`)).body.data;
    expect(after).toMatchObject({ status: 'expired', downloadUrl: null, expiresAt: null });
    const stored: string[] = [];
    for await (const o of t.app.deps.storage.list('exports/')) stored.push(o.key);
    expect(stored).toEqual([]);
    // Finished: a new export may start.
    expect((await t.request('POST', '/api/v1/organization/exports')).status).toBe(202);
  }, 60_000);
});
