import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createSignetClient, type SignetClient } from '../../clients/typescript/src/index.ts';
import { samplePdf } from '../helpers/factories.ts';
import { startLiveSignet, type LiveSignet } from './support.ts';

/*
 * The TypeScript client against a real Signet listening on 127.0.0.1: the calls of the README's
 * walk-through, typed end to end, and the error bodies as the client hands them back.
 */
let live: LiveSignet;
let signet: SignetClient;

beforeAll(async () => {
  live = await startLiveSignet();
  signet = createSignetClient({ baseUrl: live.url, apiKey: live.t.key });
});
afterAll(async () => {
  await live?.close();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('createSignetClient against a live server', () => {
  it('creates a document, uploads a PDF made here, adds a signer and a field, sends, lists, gets and downloads it', async () => {
    const pdf = await samplePdf(2, 'Consulting agreement');

    const created = await signet.POST('/api/v1/documents', {
      body: { name: 'Consulting agreement', message: 'Please sign by Friday' },
    });
    expect(created.response.status).toBe(201);
    const doc = created.data!.data;
    expectTypeOf(doc.status).toEqualTypeOf<
      'draft' | 'pending' | 'action_required' | 'completed' | 'declined' | 'cancelled' | 'expired'
    >();
    expect(doc).toMatchObject({
      name: 'Consulting agreement',
      status: 'draft',
      message: 'Please sign by Friday',
    });

    const upload = await signet.POST('/api/v1/documents/{id}/upload', {
      params: { path: { id: doc.id } },
      body: { filename: 'agreement.pdf', contentType: 'application/pdf' },
    });
    expect(upload.error).toBeUndefined();
    const put = await fetch(upload.data!.data.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: new Uint8Array(pdf),
    });
    expect(put.status).toBeLessThan(300);

    const signer = await signet.POST('/api/v1/documents/{id}/signers', {
      params: { path: { id: doc.id } },
      body: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    expect(signer.response.status).toBe(201);
    expect(signer.data!.data).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      status: 'pending',
    });
    const field = await signet.POST('/api/v1/documents/{id}/fields', {
      params: { path: { id: doc.id } },
      body: { type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 },
    });
    expect(field.response.status).toBe(201);

    const sent = await signet.POST('/api/v1/documents/{id}/send', {
      params: { path: { id: doc.id } },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.data!.data.status).toBe('pending');

    const list = await signet.GET('/api/v1/documents', {
      params: { query: { status: 'pending', search: 'consulting', limit: 10 } },
    });
    expect(list.error).toBeUndefined();
    expect(list.data!.data.map((d) => d.id)).toEqual([doc.id]);
    expect(list.data!.meta.hasMore).toBe(false);

    const got = await signet.GET('/api/v1/documents/{id}', { params: { path: { id: doc.id } } });
    expect(got.data!.data).toMatchObject({
      id: doc.id,
      status: 'pending',
      fileSize: pdf.length,
      documentHash: sha256(pdf),
      signers: [{ email: 'ada@example.com', status: 'sent' }],
      fields: [{ type: 'signature', page: 1 }],
    });

    // Until the document is completed, download returns the file as uploaded.
    const download = await signet.GET('/api/v1/documents/{id}/download', {
      params: { path: { id: doc.id } },
      parseAs: 'arrayBuffer',
    });
    expect(download.response.status).toBe(200);
    expect(download.response.headers.get('content-type')).toBe('application/pdf');
    expect(sha256(new Uint8Array(download.data as ArrayBuffer))).toBe(sha256(pdf));
  });

  it('hands back error bodies typed as Signet error responses: 400, 401, 404, 409', async () => {
    const blank = await signet.POST('/api/v1/documents', { body: { name: '   ' } });
    expect(blank.data).toBeUndefined();
    expect(blank.response.status).toBe(400);
    expectTypeOf(blank.error!.error.code).toEqualTypeOf<string>();
    expect(blank.error!.error.code).toBe('validation_error');
    expect(blank.error!.error.details).toContainEqual(
      expect.objectContaining({ path: 'body.name' }),
    );
    expect(blank.response.headers.get('x-request-id')).toMatch(/^req_/);

    const missing = await signet.GET('/api/v1/documents/{id}', {
      params: { path: { id: 'doc_00000000000000000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error.code).toBe('not_found');

    const draft = (await signet.POST('/api/v1/documents', { body: { name: 'No signers yet' } }))
      .data!.data;
    const early = await signet.POST('/api/v1/documents/{id}/send', {
      params: { path: { id: draft.id } },
    });
    expect(early.response.status).toBe(409);
    expect(['missing_signers', 'missing_file']).toContain(early.error!.error.code);

    const stranger = createSignetClient({
      baseUrl: live.url,
      apiKey: 'sk_not_a_real_key_0000000000000000000000000000',
    });
    const refused = await stranger.GET('/api/v1/documents', {});
    expect(refused.response.status).toBe(401);
    expect(refused.error!.error.code).toBe('unauthorized');
  });

  it('refuses to build without a base URL or a key', () => {
    expect(() => createSignetClient({ baseUrl: '', apiKey: 'sk_x' })).toThrow(/baseUrl/);
    expect(() => createSignetClient({ baseUrl: live.url, apiKey: '' })).toThrow(/apiKey/);
  });
});
