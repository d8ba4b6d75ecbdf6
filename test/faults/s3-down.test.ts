import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { api, childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { startS3Server, type S3Server } from '../storage/s3-server.ts';
import { waitFor } from '../webhooks/support.ts';
import { bootstrapKey, onServer, sendAndSign } from './flow.ts';

/*
 * The S3 endpoint goes away under a real server process (the S3-protocol server is stopped:
 * connections refused) and comes back on the same address with the same objects. Operations that
 * need a file answer 503 storage_unavailable at once, /readyz says storage is unreachable,
 * nothing half-written is left in the bucket, and everything works again without a restart.
 */

let s3: S3Server;
let db: TestDatabase;
let server: ChildServer;
let bucket: S3Client;
afterAll(async () => {
  if (server?.process.exitCode === null)
    await terminate(server).catch(() => server.process.kill('SIGKILL'));
  bucket?.destroy();
  await s3?.close();
  await db?.drop();
});

const ready = async () => {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};
const download = (key: string, id: string) =>
  fetch(`${server.url}/api/v1/documents/${id}/download`, {
    headers: { authorization: `Bearer ${key}` },
  });
const objects = async (prefixPart: string) =>
  ((await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? [])
    .map((o) => o.Key!)
    .filter((k) => k.includes(prefixPart));

describe('S3 endpoint down', () => {
  it('503 storage_unavailable where a file is needed, /readyz fails, nothing half-written; all works again when it returns', {
    timeout: 150_000,
  }, async () => {
    s3 = await startS3Server();
    bucket = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    db = await createTestDatabase({ migrated: false });
    server = await serve(
      childEnv({
        DATA_DIR: db.dataDir,
        DATABASE_URL: db.url,
        PUBLIC_URL: 'http://localhost:3000',
        STORAGE: 's3',
        S3_BUCKET: s3.bucket,
        S3_REGION: 'us-east-1',
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      }),
    );
    const key = bootstrapKey(server);
    const pdf = new Uint8Array(await samplePdf(1));

    // A completed document whose signed PDF lives in the bucket.
    const draft = async (name: string) => {
      const created = await api(server, key, 'POST', '/api/v1/documents', {
        name,
        signers: [{ name: 'Ada', email: 'ada@example.test' }],
        fields: [field({ assignedTo: 0, required: true })],
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const ticket = (
        await api(server, key, 'POST', `/api/v1/documents/${id}/upload`, {
          contentType: 'application/pdf',
        })
      ).body.data;
      return {
        id,
        ticket: ticket as { uploadUrl: string; headers: Record<string, string>; method: string },
      };
    };
    const done = await draft('Signed before the outage');
    expect(
      (
        await fetch(done.ticket.uploadUrl, {
          method: 'PUT',
          headers: done.ticket.headers,
          body: pdf,
        })
      ).status,
    ).toBe(200);
    expect(
      (await api(server, key, 'GET', `/api/v1/documents/${done.id}`)).body.data.fileSize,
    ).toBeGreaterThan(0);
    await sendAndSign(server, key, done.id);
    await waitFor(
      async () =>
        (await api(server, key, 'GET', `/api/v1/documents/${done.id}`)).body.data.status ===
        'completed',
      'completion',
      60_000,
      200,
    );
    expect((await download(key, done.id)).status).toBe(200);

    // A template whose file goes through Signet's own upload URL into the bucket.
    const template = await api(server, key, 'POST', '/api/v1/templates', {
      name: 'Outage template',
    });
    expect(template.status).toBe(201);
    const templateId = template.body.data.id as string;
    const templateTicket = (
      await api(server, key, 'POST', `/api/v1/templates/${templateId}/upload`, {})
    ).body.data;
    const putTemplate = async () => {
      const res = await fetch(onServer(server, templateTicket.uploadUrl), {
        method: 'PUT',
        headers: templateTicket.headers,
        body: pdf,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await ready()).status).toBe(200);

    // The endpoint goes down.
    await s3.stop();
    const probe = await ready();
    expect(probe.status).toBe(503);
    expect(probe.body).toMatchObject({
      status: 'unavailable',
      storage: 'unreachable',
      database: 'ok',
    });
    const refusedDownload = await download(key, done.id);
    expect(refusedDownload.status).toBe(503);
    expect(refusedDownload.headers.get('retry-after')).toBe('5');
    expect(((await refusedDownload.json()) as any).error.code).toBe('storage_unavailable');
    const refusedUpload = await putTemplate();
    expect(refusedUpload.status).toBe(503);
    expect(refusedUpload.body.error.code).toBe('storage_unavailable');
    const another = await draft('Created during the outage');
    // The API itself keeps answering what needs no file.
    expect((await api(server, key, 'GET', '/api/v1/documents?limit=5')).status).toBe(200);
    const detail = (await api(server, key, 'GET', `/api/v1/templates/${templateId}`)).body.data;
    expect(detail.fileSize ?? 0).toBe(0);

    // It comes back on the same address with the same objects.
    await s3.restart();
    // Nothing half-written: the refused template upload left no object.
    expect(await objects(templateId)).toEqual([]);
    await waitFor(async () => (await ready()).status === 200, '/readyz ok again', 30_000, 200);
    const again = await download(key, done.id);
    expect(again.status).toBe(200);
    expect(
      Buffer.from(await again.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const uploaded = await putTemplate();
    expect(uploaded.status).toBe(200);
    expect(await objects(templateId)).toHaveLength(1);
    expect(
      (
        await fetch(another.ticket.uploadUrl, {
          method: 'PUT',
          headers: another.ticket.headers,
          body: pdf,
        })
      ).status,
    ).toBe(200);
    expect(
      (await api(server, key, 'GET', `/api/v1/documents/${another.id}`)).body.data.fileSize,
    ).toBeGreaterThan(0);
  });
});
