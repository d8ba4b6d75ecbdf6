import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  newInstallation,
  startServe,
  type Installation,
  type RunningServer,
} from '../cli/run-cli.ts';
import { writeP12 } from '../helpers/p12.ts';
import { signingApp, type SigningTest } from '../signing/setup.ts';
import {
  startReceiver,
  verifyServiceSignature,
  waitFor,
  type Receiver,
} from '../webhooks/support.ts';
import {
  KEY_A,
  KEY_B,
  completedDocument,
  jsonOf,
  queuedDocument,
  signet,
  tempDir,
} from './support.ts';

/*
 * A running instance (SQLite or PostgreSQL, local files) is backed up with `signet backup`, then
 * restored with `signet restore` into a new installation, which is started as `signet serve`:
 * what users of the API see must be what they saw, and what was queued must go out once.
 */

let source: SigningTest;
let receiver: Receiver;
let webhookSecret: string;
let backupDir: string;
let completedId: string;
let signedPdf: Buffer;
/** Deliveries made before the backup (must not be made again), and those still queued in it. */
let deliveredBefore: Set<string>;
let queuedDeliveries: string[];
const signerDone = 'ada-backup@example.test';
const signerQueued = 'grace-backup@example.test';
const installations: Installation[] = [];
const dirs: string[] = [];

const sourceEnv = () => ({
  DATA_DIR: source.database.dataDir,
  DATABASE_URL: source.database.url,
  SECRET_KEY: KEY_A,
});

beforeAll(async () => {
  receiver = await startReceiver();
  source = await signingApp({ SECRET_KEY: KEY_A, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const hook = await source.request('POST', '/api/v1/webhooks', {
    body: { url: receiver.url, events: ['document.sent', 'document.completed'] },
  });
  webhookSecret = hook.body.data.secret;
  completedId = await completedDocument(source, signerDone);
  await source.app.deliveries.drain();
  deliveredBefore = new Set(
    receiver.received.map((r) => String(r.headers['x-service-delivery-id'])),
  );
  await queuedDocument(source, signerQueued);
  queuedDeliveries = (
    await source.database.handle.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .execute()
  ).map((d) => d.id);
  const download = await source.request('GET', `/api/v1/documents/${completedId}/download`);
  signedPdf = download.raw.rawPayload;
  backupDir = path.join(tempDir('backup'), 'b1');
  dirs.push(path.dirname(backupDir));
  const run = await signet(['backup', '--to', backupDir, '--json'], sourceEnv());
  if (run.code !== 0) throw new Error(`backup failed: ${run.stderr}`);
}, 180_000);

afterAll(async () => {
  killLeftovers();
  await source?.stop();
  await receiver?.close();
  for (const i of installations) await i.remove();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function installation(): Promise<Installation> {
  const inst = await newInstallation();
  installations.push(inst);
  return inst;
}

/** What a CLI run on `inst` needs beyond the installation's own DATA_DIR and DATABASE_URL. */
const targetEnv = (inst: Installation, key = KEY_A): Record<string, string> => ({
  DATA_DIR: inst.dataDir,
  ...(inst.databaseUrl ? { DATABASE_URL: inst.databaseUrl } : {}),
  SECRET_KEY: key,
});

async function api(server: RunningServer, method: string, url: string, body?: Buffer) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${source.key}`,
      ...(body ? { 'content-type': 'application/pdf' } : {}),
    },
    body: body ? new Uint8Array(body) : undefined,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.includes('json')
    ? JSON.parse(bytes.toString())
    : null;
  return { status: res.status, json, bytes };
}

describe('signet backup and signet restore', () => {
  let restored: Installation;

  it('restores into a new installation: keys, documents, signed PDFs, webhook secrets, queued mail and deliveries', async () => {
    restored = await installation();
    const run = await signet(['restore', '--from', backupDir, '--json'], targetEnv(restored));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ files: expect.any(Number), rows: expect.any(Number) });

    const before = receiver.received.length;
    const mailsBefore = source.sink.messages.length;
    const server = await startServe(restored, {
      ...targetEnv(restored),
      SMTP_URL: source.sink.url,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      PUBLIC_URL: 'http://localhost:3000',
    });
    try {
      // The source's API key, and every answer as the source gave it.
      for (const url of [
        '/api/v1/documents',
        `/api/v1/documents/${completedId}`,
        `/api/v1/documents/${completedId}/audit`,
        '/api/v1/webhooks',
      ]) {
        const there = await api(server, 'GET', url);
        const here = await source.request('GET', url);
        expect(there.status, url).toBe(200);
        expect(there.json, url).toEqual(here.body);
      }
      const download = await api(server, 'GET', `/api/v1/documents/${completedId}/download`);
      expect(download.status).toBe(200);
      expect(download.bytes.equals(signedPdf)).toBe(true);
      const verified = await api(server, 'POST', '/api/v1/verify', download.bytes);
      expect(verified.status).toBe(200);
      expect(verified.json.data.signatures[0].valid).toBe(true);
      expect(verified.json.data.modifiedAfterLastSignature).toBe(false);

      // What was queued goes out, with the same delivery ids, signed with the same secret.
      await waitFor(
        () => receiver.received.length - before >= queuedDeliveries.length,
        'the queued deliveries',
        30_000,
      );
      const resent = receiver.received.slice(before);
      expect(resent.map((r) => r.headers['x-service-delivery-id']).sort()).toEqual(
        [...queuedDeliveries].sort(),
      );
      for (const r of resent)
        expect(verifyServiceSignature(webhookSecret, r.headers, r.body)).toBe(true);
      await waitFor(() => source.sink.to(signerQueued).length > 0, 'the queued invitation', 30_000);
      // What had gone out before the backup does not go out again.
      await new Promise((r) => setTimeout(r, 1500));
      for (const r of receiver.received.slice(before))
        expect(deliveredBefore.has(String(r.headers['x-service-delivery-id']))).toBe(false);
      expect(
        source.sink.messages.slice(mailsBefore).filter((m) => m.to.includes(signerDone)),
      ).toEqual([]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);

  it('a restored instance started with another SECRET_KEY refuses to start and says why', async () => {
    const server = startServe(restored, targetEnv(restored, KEY_B));
    const err = await server.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited with 2 before listening/);
    expect(err?.message).toMatch(/signing-cert.p12 does not open .*SECRET_KEY is not the one/);
    // With a certificate of its own, the webhook secrets are what cannot be opened.
    const p12 = path.join(tempDir('p12'), 'own.p12');
    dirs.push(path.dirname(p12));
    await writeP12(p12, 'pw');
    const own = await startServe(restored, {
      ...targetEnv(restored, KEY_B),
      SIGNING_CERT_P12: p12,
      SIGNING_CERT_PASSWORD: 'pw',
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(own?.message).toMatch(/exited with 2 before listening/);
    expect(own?.message).toMatch(
      /webhook secrets stored in the database do not open with SECRET_KEY: SECRET_KEY is not the one they were encrypted with/,
    );
  }, 120_000);

  it('refuses a backup made with another SECRET_KEY, writing nothing', async () => {
    const target = await installation();
    const run = await signet(['restore', '--from', backupDir], targetEnv(target, KEY_B));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/another SECRET_KEY/);
    expect(fs.readdirSync(target.dataDir)).toEqual([]);
    if (target.databaseUrl) {
      const handle = target.open();
      const tables = await handle.db.introspection.getTables();
      await handle.close();
      expect(tables).toEqual([]);
    }
  }, 60_000);

  it('refuses a target whose database or storage has data, writing nothing', async () => {
    const used = await installation();
    const org = await signet(
      ['org', 'create', '--name', 'Other', '--admin-email', 'x@example.test', '--json'],
      targetEnv(used),
    );
    expect(org.code).toBe(0);
    const refused = await signet(['restore', '--from', backupDir], targetEnv(used));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/target database is not empty \(table \w+ has rows\)/);
    const handle = used.open();
    const orgs = await handle.db.selectFrom('organizations').select('name').execute();
    const docs = await handle.db.selectFrom('documents').select('id').execute();
    await handle.close();
    expect(orgs.map((o) => o.name)).toEqual(['Other']);
    expect(docs).toEqual([]);
    expect(fs.existsSync(path.join(used.dataDir, 'files'))).toBe(false);
    expect(fs.existsSync(path.join(used.dataDir, 'signing-cert.p12'))).toBe(false);

    const stored = await installation();
    fs.mkdirSync(path.join(stored.dataDir, 'files/x'), { recursive: true });
    fs.writeFileSync(path.join(stored.dataDir, 'files/x/left.pdf'), 'left over');
    const refusedFiles = await signet(['restore', '--from', backupDir], targetEnv(stored));
    expect(refusedFiles.code).toBe(1);
    expect(refusedFiles.stderr).toMatch(/target storage is not empty \(it holds x\/left.pdf\)/);
    expect(fs.readdirSync(stored.dataDir)).toEqual(['files']);
  }, 60_000);
});

describe('signet backup verify', () => {
  const copy = () => {
    const dir = path.join(tempDir('verify'), 'b');
    dirs.push(path.dirname(dir));
    fs.cpSync(backupDir, dir, { recursive: true });
    return dir;
  };
  const verify = (dir: string, key = KEY_A) =>
    signet(['backup', 'verify', dir, '--json'], { SECRET_KEY: key, DATA_DIR: tempDir('none') });

  it('an untouched backup is intact', async () => {
    const run = await verify(backupDir);
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ status: 'intact', problems: [] });
  }, 60_000);

  it('one flipped byte is corruption: the file named', async () => {
    const dir = copy();
    const file = path.join(dir, 'tables/documents.jsonl');
    const bytes = fs.readFileSync(file);
    bytes[10] ^= 1;
    fs.writeFileSync(file, bytes);
    const run = await verify(dir);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({
      status: 'corrupted',
      problems: ["tables/documents.jsonl: its SHA-256 is not the manifest's"],
    });
    // And a restore refuses it before writing anything.
    const target = await installation();
    const restore = await signet(['restore', '--from', dir], targetEnv(target));
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/does not match its manifest, nothing was restored/);
    expect(fs.readdirSync(target.dataDir)).toEqual([]);
  }, 60_000);

  it('a changed file re-hashed into the manifest is tampering (the HMAC does not match)', async () => {
    const dir = copy();
    const file = path.join(dir, 'tables/organizations.jsonl');
    const changed = fs.readFileSync(file, 'utf8').replace('"Acme"', '"Evil"');
    fs.writeFileSync(file, changed);
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    const entry = manifest.tables.find((t: { name: string }) => t.name === 'organizations');
    const { createHash } = await import('node:crypto');
    entry.sha256 = createHash('sha256').update(changed).digest('hex');
    entry.bytes = Buffer.byteLength(changed);
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    const run = await verify(dir);
    expect(run.code).toBe(3);
    expect(jsonOf(run)).toMatchObject({ status: 'tampered', problems: [] });
    const other = await verify(backupDir, KEY_B);
    expect(other.code).toBe(4);
    expect(jsonOf(other).status).toBe('other_key');
  }, 60_000);

  it('a backup that did not finish has no manifest: incomplete', async () => {
    const dir = copy();
    fs.rmSync(path.join(dir, 'manifest.json'));
    const run = await verify(dir);
    expect(run.code).toBe(1);
    expect(jsonOf(run).status).toBe('incomplete');
  }, 60_000);
});
