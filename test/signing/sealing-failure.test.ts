import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeDocument } from '../../src/modules/documents/finalize.service.ts';
import { writeP12 } from '../helpers/p12.ts';
import {
  address,
  auditActions,
  eventTypes,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

/*
 * Sealing that fails never strands a document: a permanent error (the configured certificate is
 * missing or its password wrong) or exhausted attempts make it `action_required` with the reason,
 * and a reseal completes it once the cause is fixed.
 */

let t: SigningTest;
let certFile: string;
const PASSWORD = 'right horse battery';

let certDir: string;

beforeAll(async () => {
  certDir = await mkdtemp(path.join(os.tmpdir(), 'signet-seal-'));
  certFile = path.join(certDir, 'configured.p12');
  t = await signingApp({
    SIGNING_CERT_P12: certFile,
    SIGNING_CERT_PASSWORD: PASSWORD,
    SEALING_RETRY_SCHEDULE: '200ms,200ms',
  });
});
afterAll(async () => {
  await t.stop();
  await rm(certDir, { recursive: true, force: true });
});

async function allSigned() {
  const email = address('seal');
  const doc = await sentDocument(t, { signers: [{ name: 'Ada', email }] });
  const done = await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
    key: null,
    body: { values: {}, signature: typed() },
  });
  expect(done.body.data.allSigned).toBe(true);
  return doc;
}

const detailOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
const metric = async (outcome: string) => {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`signet_sealing_failures_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};
const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json();

describe('sealing that fails for good', () => {
  it('a missing certificate: action_required at once, the sender told, /readyz fails; reseal completes it once fixed', async () => {
    expect(await ready()).toMatchObject({ status: 'unavailable', certificate: 'unusable' });
    const doc = await allSigned();
    await t.settle();

    const detail = await detailOf(doc.id);
    expect(detail.status).toBe('action_required');
    expect(detail.actionRequired.reason).toBe('sealing_failed');
    expect(detail.actionRequired.signerId).toBeUndefined();
    expect(detail.actionRequired.message).toContain('configured.p12');
    expect(detail.actionRequired.message).toContain(`/api/v1/documents/${doc.id}/reseal`);
    expect(detail.signedFileHash).toBe('');
    expect(await eventTypes(t)).toContain('document.action_required');
    expect(await auditActions(t, doc.id)).toContain('document.action_required');
    const admin = t.sink
      .to('admin@acme.test')
      .filter((m) => m.subject.startsWith('Action required'));
    expect(admin.at(-1)!.text).toContain('signed PDF could not be produced');
    // A permanent error skips the remaining attempts.
    const job = await t.database.handle.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'finalize')
      .where('payload', 'like', `%${doc.id}%`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await metric('gave_up')).toBe(1);

    // A wrong password is as unusable as no file.
    await writeP12(certFile, 'another password');
    expect(await ready()).toMatchObject({ status: 'unavailable', certificate: 'unusable' });
    await rm(certFile);
    await writeP12(certFile, PASSWORD);
    expect(await ready()).toMatchObject({ status: 'ok', certificate: 'ok' });

    const resealed = await t.request('POST', `/api/v1/documents/${doc.id}/reseal`);
    expect(resealed.status).toBe(200);
    expect(resealed.body.data).toMatchObject({
      id: doc.id,
      status: 'pending',
      actionRequired: null,
    });
    await t.settle();
    const completed = await detailOf(doc.id);
    expect(completed.status).toBe('completed');
    expect(completed.signedFileHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await auditActions(t, doc.id)).toEqual(
      expect.arrayContaining(['document.reseal_requested', 'document.completed']),
    );

    const again = await t.request('POST', `/api/v1/documents/${doc.id}/reseal`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
    expect((await t.request('POST', '/api/v1/documents/doc_nope/reseal')).status).toBe(404);
    const readOnly = await t.keyWith(['documents.read']);
    expect(
      (await t.request('POST', `/api/v1/documents/${doc.id}/reseal`, { key: readOnly })).status,
    ).toBe(403);
  });

  it('a transient error is retried on SEALING_RETRY_SCHEDULE, then the document is action_required', async () => {
    const doc = await allSigned();
    const db = t.database.handle.db;
    const row = await db
      .selectFrom('documents')
      .select('file_key')
      .where('id', '=', doc.id)
      .executeTakeFirstOrThrow();
    // The source file vanishes from storage: reading it fails, which another attempt might fix.
    await t.app.deps.storage.delete(row.file_key!);
    const before = await metric('retrying');
    const jobOf = () =>
      db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'finalize')
        .where('payload', 'like', `%${doc.id}%`)
        .executeTakeFirstOrThrow();

    await t.settle();
    expect(await jobOf()).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await detailOf(doc.id)).status).toBe('pending');
    t.clock.advance(200);
    await t.settle();
    expect(await jobOf()).toMatchObject({ status: 'pending', attempts: 2 });
    t.clock.advance(200);
    await t.settle();
    expect(await jobOf()).toMatchObject({ status: 'failed', attempts: 3 });
    expect(await metric('retrying')).toBe(before + 2);
    const detail = await detailOf(doc.id);
    expect(detail.status).toBe('action_required');
    expect(detail.actionRequired.reason).toBe('sealing_failed');
  });

  it('a run that finds its document deleted keeps the signed file another run recorded', async () => {
    const doc = await allSigned();
    const db = t.database.handle.db;
    const storage = t.app.deps.storage;
    const put = storage.put.bind(storage);
    let recordedKey = '';
    // While this run stores its signed file, another run records the same file and the sender
    // deletes the completed document: this run's transaction then finds no live document.
    storage.put = async (key, body, contentType) => {
      await put(key, body, contentType);
      if (!key.includes('/signed-')) return;
      recordedKey = key;
      const now = new Date().toISOString();
      await db
        .updateTable('documents')
        .set({ status: 'completed', signed_file_key: key, deleted_at: now })
        .where('id', '=', doc.id)
        .execute();
    };
    try {
      await finalizeDocument(t.app.deps, doc.id);
    } finally {
      storage.put = put;
    }
    expect(recordedKey).not.toBe('');
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get(recordedKey)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('which sealing errors are permanent', () => {
  it('the certificate, the PDF itself, a refused limit: yes; anything else (storage, a crash): retried', async () => {
    const { isPermanentSealingError } = await import(
      '../../src/modules/documents/sealing.service.ts'
    );
    const { PermanentJobError } = await import('../../src/queue/queue.ts');
    const named = (name: string) => Object.assign(new Error('x'), { name });
    expect(isPermanentSealingError(new PermanentJobError('refused'))).toBe(true);
    for (const name of [
      'SigningCertificateError',
      'PdfSyntaxError',
      'PdfUnsupportedError',
      'PdfLimitError',
    ])
      expect(isPermanentSealingError(named(name))).toBe(true);
    expect(isPermanentSealingError(new Error('ENOENT'))).toBe(false);
    expect(isPermanentSealingError(named('TypeError'))).toBe(false);
  });
});

describe('startup refuses an unusable certificate', () => {
  it('startServer throws a clear message naming the variables', async () => {
    const { startServer } = await import('../../src/server.ts');
    const { loadConfig } = await import('../../src/config.ts');
    const bad = path.join(t.database.dataDir, 'bad.p12');
    await writeFile(bad, 'not a p12');
    const config = loadConfig({
      DATA_DIR: t.database.dataDir,
      SIGNING_CERT_P12: bad,
      LOG_LEVEL: 'silent',
      WORKERS: 'off',
      PORT: '0',
    });
    await expect(startServer(config)).rejects.toThrow(
      /signing certificate cannot be used: .*SIGNING_CERT_P12 and SIGNING_CERT_PASSWORD/,
    );
  });
});
