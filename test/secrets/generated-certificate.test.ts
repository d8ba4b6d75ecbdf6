import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { signingCertPassword } from '../../src/secret-key.ts';
import { childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/*
 * The generated signing certificate is encrypted with a password derived from SECRET_KEY and
 * stored nowhere: a real server generates it, migrates one an earlier version left with its
 * password beside it, and refuses to start (or fails /readyz) when SECRET_KEY does not open it.
 */

const KEY_A = 'a'.repeat(16) + '0123456789abcdef0123456789abcdef';
const KEY_B = 'b'.repeat(16) + '0123456789abcdef0123456789abcdef';
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false });
  cleanups.push(() => db.drop());
  return db;
}

async function start(db: TestDatabase, secretKey: string): Promise<ChildServer> {
  const server = await serve(
    childEnv({ DATA_DIR: db.dataDir, DATABASE_URL: db.url, SECRET_KEY: secretKey }),
  );
  cleanups.push(() => (server.process.exitCode === null ? terminate(server) : Promise.resolve()));
  return server;
}

const ready = async (server: ChildServer) => {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

const certFiles = async (dir: string) =>
  (await readdir(dir)).filter((f) => f.startsWith('signing-cert')).sort();

describe('the generated certificate and SECRET_KEY', () => {
  it('is generated with no password file; another SECRET_KEY refuses to start with a clear message', {
    timeout: 90_000,
  }, async () => {
    const db = await database();
    const first = await start(db, KEY_A);
    expect(await ready(first)).toMatchObject({ status: 200, body: { certificate: 'ok' } });
    expect(await certFiles(db.dataDir)).toEqual(['signing-cert.p12']);
    // The file opens with the password derived from that key.
    const opened = await loadSigningCertificate({
      dataDir: db.dataDir,
      signingCertP12: undefined,
      signingCertPassword: undefined,
      generatedCertPassword: signingCertPassword(Buffer.from(KEY_A)),
    });
    expect(opened.source).toBe('self-signed');
    expect((await terminate(first)).code).toBe(0);

    const refused = await start(db, KEY_B).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refused).toMatch(
      /signing certificate cannot be used: .*signing-cert\.p12 does not open with the password derived from SECRET_KEY/,
    );
    expect(refused).not.toContain(signingCertPassword(Buffer.from(KEY_A)));
    // The certificate was left as it was: the right key starts again.
    const again = await start(db, KEY_A);
    expect((await ready(again)).status).toBe(200);
    expect((await terminate(again)).code).toBe(0);
  });

  it('/readyz fails while running when the certificate no longer opens with SECRET_KEY, and recovers when it does', {
    timeout: 90_000,
  }, async () => {
    const db = await database();
    const server = await start(db, KEY_A);
    const p12 = path.join(db.dataDir, 'signing-cert.p12');
    const saved = `${p12}.saved`;
    await copyFile(p12, saved);
    // A certificate generated elsewhere under another key is put in its place.
    const other = await mkdtemp(path.join(os.tmpdir(), 'signet-other-cert-'));
    cleanups.push(() => rm(other, { recursive: true, force: true }));
    await loadSigningCertificate({
      dataDir: other,
      signingCertP12: undefined,
      signingCertPassword: undefined,
      generatedCertPassword: signingCertPassword(Buffer.from(KEY_B)),
    });
    await copyFile(path.join(other, 'signing-cert.p12'), `${p12}.tmp`);
    await rm(p12);
    await copyFile(`${p12}.tmp`, p12);
    expect(await ready(server)).toMatchObject({
      status: 503,
      body: { status: 'unavailable', certificate: 'unusable' },
    });
    await rm(p12);
    await copyFile(saved, p12);
    expect(await ready(server)).toMatchObject({ status: 200, body: { certificate: 'ok' } });
  });

  it.skipIf(!hasOpenssl)(
    "an earlier version's certificate and password file: the server re-encrypts it and deletes the password",
    { timeout: 90_000 },
    async () => {
      const db = await database();
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const keyFile = path.join(db.dataDir, 'legacy.key');
      await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const openssl = (...args: string[]) =>
        execFileSync('openssl', args, { cwd: db.dataDir, stdio: 'pipe' });
      openssl(
        'req',
        '-x509',
        '-key',
        'legacy.key',
        '-out',
        'legacy.pem',
        '-days',
        '30',
        '-subj',
        '/CN=Signet document signing (self-signed)',
      );
      openssl(
        'pkcs12',
        '-export',
        '-inkey',
        'legacy.key',
        '-in',
        'legacy.pem',
        '-passout',
        'pass:a-random-password',
        '-out',
        'signing-cert.p12',
      );
      await writeFile(path.join(db.dataDir, 'signing-cert.password'), 'a-random-password\n', {
        mode: 0o600,
      });
      await rm(keyFile);

      const server = await start(db, KEY_A);
      expect(await ready(server)).toMatchObject({ status: 200, body: { certificate: 'ok' } });
      expect(await certFiles(db.dataDir)).toEqual(['signing-cert.p12']);
      const p12 = path.join(db.dataDir, 'signing-cert.p12');
      expect(
        spawnSync('openssl', ['pkcs12', '-in', p12, '-nokeys', '-passin', 'pass:a-random-password'])
          .status,
      ).not.toBe(0);
      expect(
        spawnSync('openssl', [
          'pkcs12',
          '-in',
          p12,
          '-nokeys',
          '-passin',
          `pass:${signingCertPassword(Buffer.from(KEY_A))}`,
        ]).status,
      ).toBe(0);
      expect((await terminate(server)).code).toBe(0);
      // And it keeps starting from the migrated file alone.
      const again = await start(db, KEY_A);
      expect((await ready(again)).status).toBe(200);
    },
  );
});
