import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate } from '../../src/db/create-db.ts';
import { S3Storage } from '../../src/storage/s3.ts';
import { newInstallation, type Installation } from '../cli/run-cli.ts';
import { buildTestApp } from '../helpers/build-test-app.ts';
import { childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import type { SigningTest } from '../signing/setup.ts';
import { startS3Server, type S3Server } from '../storage/s3-server.ts';
import { completedDocument, tempDir } from './support.ts';

/*
 * docs/backup.md's "Moving to PostgreSQL and S3", run as written: an installation on the embedded
 * defaults (SQLite and local files in ./data, its SECRET_KEY generated into data/secret.key) is
 * stopped, backed up and restored into PostgreSQL and an S3 bucket (s3rver), then started there.
 * Only the placeholders are replaced (the database URL and the S3 credentials); S3_ENDPOINT and
 * S3_FORCE_PATH_STYLE come from the environment, as the page says for S3-compatible stores.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = fs.readFileSync(path.join(ROOT, 'docs/backup.md'), 'utf8');

function block(name: string): string {
  const match = new RegExp(`<!-- readme-test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(
    PAGE,
  );
  if (!match) throw new Error(`docs/backup.md has no block marked readme-test: ${name}`);
  return match[1];
}

if (!testDatabaseUrl)
  console.warn('the move to PostgreSQL and S3 is tested only with TEST_DATABASE_URL set');

let work: string;
let s3: S3Server;
let target: Installation;
let sink: SmtpSink;
let key: string;
let completedId: string;
let draftId: string;
const expected = new Map<string, unknown>();
let signedPdf: Buffer;

function bash(script: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], {
      cwd: work,
      // npx finds the project's own `signet` in node_modules/.bin and never asks a registry.
      env: { PATH: process.env.PATH, HOME: work, npm_config_offline: 'true', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script}\nfailed (${code}):\n${out}\n${err}`)),
    );
  });
}

describe.skipIf(!testDatabaseUrl)('moving from SQLite and local files to PostgreSQL and S3', () => {
  beforeAll(async () => {
    work = tempDir('move');
    const dataDir = path.join(work, 'data');
    fs.mkdirSync(path.join(work, 'node_modules/.bin'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'bin/signet.js'), path.join(work, 'node_modules/.bin/signet'));
    s3 = await startS3Server('signet-files');
    target = await newInstallation();
    sink = await SmtpSink.start();
    // The source, as `npm start` keeps it: SQLite and files in ./data, no SECRET_KEY set.
    const handle = createDb({
      databaseUrl: undefined,
      sqliteFile: path.join(dataDir, 'signet.db'),
    });
    await migrate(handle.db);
    const database = { handle, url: undefined, dataDir, drop: async () => handle.close() };
    const t = await buildTestApp({
      env: { SMTP_URL: sink.url },
      mailer: sink.mailer(dataDir),
      database,
    });
    const source: SigningTest = {
      ...t,
      sink,
      settle: () => t.drainJobs(),
      stop: () => t.close(),
    };
    key = t.key;
    completedId = await completedDocument(source, 'zoe-move@example.test', 'Zoë’s lease — 2026');
    draftId = (await t.request('POST', '/api/v1/documents', { body: { name: 'Draft' } })).body.data
      .id;
    signedPdf = (await t.request('GET', `/api/v1/documents/${completedId}/download`)).raw
      .rawPayload;
    for (const url of [
      '/api/v1/documents',
      `/api/v1/documents/${completedId}`,
      `/api/v1/documents/${draftId}`,
      `/api/v1/documents/${completedId}/audit`,
    ])
      expected.set(url, (await t.request('GET', url)).body);
    // 1. The source stops.
    await t.close();
    await handle.close();
  }, 180_000);

  afterAll(async () => {
    await target?.remove();
    await s3?.close();
    await sink?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('runs as written, and the new installation answers as the old one did', async () => {
    await bash(block('move-backup'));
    expect(fs.existsSync(path.join(work, 'signet-move/manifest.json'))).toBe(true);
    const restore = block('move-restore')
      .replace('postgres://signet:secret@db.internal:5432/signet', String(target.databaseUrl))
      .replace('S3_ACCESS_KEY_ID=AKIA…', `S3_ACCESS_KEY_ID=${s3.accessKeyId}`)
      .replace('S3_SECRET_ACCESS_KEY=…', `S3_SECRET_ACCESS_KEY=${s3.secretAccessKey}`);
    const out = await bash(restore, { S3_ENDPOINT: s3.endpoint, S3_FORCE_PATH_STYLE: 'true' });
    expect(out).toMatch(/^Restored \d+ rows of \d+ tables and \d+ files/m);

    // The files are in the bucket now, under the keys the rows name.
    const bucket = new S3Storage({
      bucket: 'signet-files',
      region: 'eu-west-1',
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    const keys: string[] = [];
    for await (const o of bucket.list()) keys.push(o.key);
    bucket.destroy();
    expect(keys.length).toBeGreaterThanOrEqual(2);

    // 4. Started with those variables.
    let server: ChildServer | null = null;
    try {
      server = await serve(
        childEnv({
          DATA_DIR: path.join(work, 'data'),
          SECRET_KEY: fs.readFileSync(path.join(work, 'data/secret.key'), 'utf8').trim(),
          DATABASE_URL: target.databaseUrl,
          STORAGE: 's3',
          S3_BUCKET: 'signet-files',
          S3_REGION: 'eu-west-1',
          S3_ENDPOINT: s3.endpoint,
          S3_FORCE_PATH_STYLE: 'true',
          S3_ACCESS_KEY_ID: s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        }),
      );
      const at = server.url;
      const get = (url: string) =>
        fetch(`${at}${url}`, { headers: { authorization: `Bearer ${key}` } });
      for (const [url, body] of expected) {
        const res = await get(url);
        expect(res.status, url).toBe(200);
        expect(await res.json(), url).toEqual(body);
      }
      // (Downloading is audited: read last.)
      const pdf = Buffer.from(
        await (await get(`/api/v1/documents/${completedId}/download`)).arrayBuffer(),
      );
      expect(pdf.equals(signedPdf)).toBe(true);
    } finally {
      if (server) await terminate(server);
    }
  }, 180_000);
});
