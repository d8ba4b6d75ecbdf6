import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create-backup.ts';
import { openLocation } from '../../src/backup/location.ts';
import { restoreBackup } from '../../src/backup/restore-backup.ts';
import { verifyBackup } from '../../src/backup/verify-backup.ts';
import { loadConfig, type S3Access } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import type { Storage, StoredKey } from '../../src/storage/storage.ts';
import { newInstallation, type Installation } from '../cli/run-cli.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { startS3Server, type S3Server } from '../storage/s3-server.ts';
import { KEY_A, tempDir } from './support.ts';

/*
 * A backup taken while a writer keeps creating documents (each with its signers, fields, audit
 * entry and event, in one transaction) is one moment of the database: restored, it holds the
 * documents created before some instant, every one whole and as it was, and none after. Written to
 * and read from S3 (s3rver), in pages of a few rows so the writer runs between them.
 */

const secretKey = Buffer.from(KEY_A);
let t: TestApp;
let s3: S3Server;
let s3Access: S3Access;
const installs: Installation[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { SECRET_KEY: KEY_A } });
  s3 = await startS3Server('backups');
  s3Access = {
    region: 'us-east-1',
    endpoint: s3.endpoint,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  };
}, 60_000);

afterAll(async () => {
  await t?.close();
  await s3?.close();
  for (const i of installs) await i.remove();
});

const createDoc = async (n: number) => {
  const res = await t.request('POST', '/api/v1/documents', {
    body: {
      name: `Doc ${n}`,
      signers: [
        { name: `A ${n}`, email: `a${n}@example.test` },
        { name: `B ${n}`, email: `b${n}@example.test` },
      ],
      fields: [
        { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 },
        { type: 'signature', page: 1, x: 10, y: 30, width: 20, height: 5, assignedTo: 1 },
      ],
    },
  });
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
  return res.body.data.id as string;
};

const rowsOf = (db: Db, table: 'documents' | 'signers' | 'fields' | 'audit_logs') =>
  db
    .selectFrom(table)
    .selectAll()
    .execute()
    .then((rows) => rows.sort((a, b) => (a.id < b.id ? -1 : 1)));

async function restoreTo(from: string, storageAccess = s3Access) {
  const inst = await newInstallation();
  installs.push(inst);
  const config = {
    ...loadConfig({
      DATA_DIR: inst.dataDir,
      SECRET_KEY: KEY_A,
      ...(inst.databaseUrl ? { DATABASE_URL: inst.databaseUrl } : {}),
    }),
    s3: storageAccess,
  };
  await restoreBackup({
    config,
    storage: new LocalStorage(path.join(inst.dataDir, 'files')),
    secretKey,
    from,
  });
  return inst;
}

describe('a backup while the server writes', () => {
  it('is one moment: a prefix of what the writer created, each document whole', async () => {
    const created: string[] = [];
    for (let i = 0; i < 20; i++) created.push(await createDoc(i));
    let stop = false;
    const writer = (async () => {
      for (let n = 100; !stop; n++) created.push(await createDoc(n));
    })();
    const atStart = created.length;
    await createBackup({
      config: { ...t.app.deps.config, s3: s3Access },
      storage: t.app.deps.storage,
      secretKey,
      to: 's3://backups/while-writing',
      pageRows: 3,
    });
    const atEnd = created.length;
    stop = true;
    await writer;
    expect(atEnd, 'documents created while the backup ran').toBeGreaterThan(atStart);

    const location = openLocation('s3://backups/while-writing', s3Access);
    const report = await verifyBackup(location, secretKey);
    location.close();
    expect(report.status).toBe('intact');

    const inst = await restoreTo('s3://backups/while-writing');
    const handle = inst.open();
    try {
      const db = t.database.handle.db;
      const restoredDocs = await rowsOf(handle.db, 'documents');
      const ids = restoredDocs.map((d) => d.id);
      // A prefix of the writer's sequence, and at least the documents from before it started.
      expect(ids).toEqual(created.slice(0, ids.length).sort());
      expect(ids.length).toBeGreaterThanOrEqual(20);
      expect(ids.length).toBeLessThan(created.length);
      const keep = new Set(ids);
      const sourceDocs = (await rowsOf(db, 'documents')).filter((d) => keep.has(d.id));
      expect(restoredDocs).toEqual(sourceDocs);
      for (const table of ['signers', 'fields', 'audit_logs'] as const) {
        const restored = await rowsOf(handle.db, table);
        const source = (await rowsOf(db, table)).filter((r) => keep.has(r.document_id));
        expect(restored, table).toEqual(source);
      }
    } finally {
      await handle.close();
    }
  }, 120_000);

  it('leaves out a file deleted while it runs, and names it', async () => {
    const dir = tempDir('files-left-out');
    const root = path.join(dir, 'files');
    const local = new LocalStorage(root);
    for (const name of ['a.pdf', 'b.pdf', 'c.pdf'])
      await local.put(`documents/${name}`, Readable.from(Buffer.from(`%PDF ${name}`)));
    // A purge deletes b.pdf just after the backup listed it, before it is copied.
    const purging: Storage = Object.assign(Object.create(local) as LocalStorage, {
      async *list(prefix?: string): AsyncIterable<StoredKey> {
        for await (const entry of local.list(prefix)) {
          if (entry.key === 'documents/b.pdf') await local.delete(entry.key);
          yield entry;
        }
      },
    });
    const to = path.join(dir, 'backup');
    const summary = await createBackup({
      config: { ...t.app.deps.config, s3: s3Access },
      storage: purging,
      secretKey,
      to,
    });
    expect(summary.filesLeftOut).toEqual(['documents/b.pdf']);
    const manifest = JSON.parse(fs.readFileSync(path.join(to, 'manifest.json'), 'utf8'));
    expect(manifest.filesLeftOut).toEqual(['documents/b.pdf']);
    expect(manifest.files.count).toBe(2);
    expect(fs.readFileSync(path.join(to, 'files/documents/a.pdf'), 'utf8')).toBe('%PDF a.pdf');
    const report = await verifyBackup(openLocation(to, s3Access), secretKey);
    expect(report.status).toBe('intact');
    // A backup never goes inside the files it copies (it would copy itself as it grows).
    const inside = { ...t.app.deps.config, storage: { driver: 'local' as const, root } };
    await expect(
      createBackup({ config: inside, storage: local, secretKey, to: path.join(root, 'b') }),
    ).rejects.toThrow(/is inside the stored files/);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
