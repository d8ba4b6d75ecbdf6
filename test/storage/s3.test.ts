import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createStorage } from '../../src/storage/create-storage.ts';
import { S3Storage } from '../../src/storage/s3.ts';
import { StorageNotFound } from '../../src/storage/storage.ts';
import { startS3Server, type S3Server } from './s3-server.ts';

// A real S3-protocol server on loopback (s3rver), not a mock of the SDK.
let server: S3Server;
let storage: S3Storage;

beforeAll(async () => {
  server = await startS3Server();
  storage = new S3Storage({
    bucket: server.bucket,
    region: 'us-east-1',
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
  });
});

afterAll(async () => {
  storage.destroy();
  await server.close();
});

describe('S3Storage against an S3-protocol server', () => {
  it('streams an object in, stats it, reads it back and deletes it', async () => {
    const bytes = randomBytes(12 * 1024 * 1024); // over one part: exercises the multipart path
    await storage.put(
      'orgs/o/documents/d/file.pdf',
      Readable.from([bytes.subarray(0, 7e6), bytes.subarray(7e6)]),
      'application/pdf',
    );
    expect(await storage.stat('orgs/o/documents/d/file.pdf')).toEqual({ size: bytes.length });
    const back = await buffer(await storage.get('orgs/o/documents/d/file.pdf'));
    expect(createHash('sha256').update(back).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    await storage.delete('orgs/o/documents/d/file.pdf');
    expect(await storage.stat('orgs/o/documents/d/file.pdf')).toBeNull();
    await expect(storage.get('orgs/o/documents/d/file.pdf')).rejects.toBeInstanceOf(
      StorageNotFound,
    );
  });

  it('accepts a presigned PUT made with the returned content type', async () => {
    const url = await storage.presignPut('uploads/presigned.pdf', 'application/pdf', 60);
    const body = Buffer.from('%PDF-1.7\n%presigned\n');
    const res = await fetch(url, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await storage.stat('uploads/presigned.pdf')).toEqual({ size: body.length });
    await storage.ping();
  });

  it('presigns for S3_PUBLIC_ENDPOINT when clients reach the bucket at another address', async () => {
    const config = loadConfig({
      STORAGE: 's3',
      S3_BUCKET: server.bucket,
      S3_ENDPOINT: server.endpoint,
      S3_PUBLIC_ENDPOINT: 'http://localhost:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: server.accessKeyId,
      S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    });
    const split = createStorage(config);
    try {
      const url = new URL(await split.presignPut!('uploads/public.pdf', 'application/pdf', 60));
      expect(url.origin).toBe('http://localhost:9000');
      expect(url.pathname).toBe(`/${server.bucket}/uploads/public.pdf`);
      // Everything else still goes to S3_ENDPOINT.
      await split.ping();
    } finally {
      split.destroy?.();
    }
  });
});
