import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renewArchiveTimestamps } from '../../src/modules/documents/timestamp-renewal.ts';
import {
  NO_OPENSSL_REASON,
  hasOpenssl,
  startTrustServices,
  type TrustServices,
} from '../helpers/trust-services.ts';
import { opensslTsVerify, pdfsigDump, sha256, signedBytes } from '../pdf/independent-checks.ts';
import { hasPoppler } from '../pdf/pdf-helpers.ts';
import {
  address,
  auditActions,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

/*
 * Archive renewal: a B-LTA document whose timestamp certificate expires within
 * TIMESTAMP_RENEW_DAYS gets a fresh document timestamp (pdfsig lists it, openssl ts verifies it),
 * with an audit entry; two instances running it at once renew it once.
 */
const ready = hasOpenssl && hasPoppler;
if (!ready) console.warn(NO_OPENSSL_REASON);

let t: SigningTest;
let services: TrustServices;
let dir: string;

beforeAll(async () => {
  if (!ready) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-renew-'));
  // The TSA's certificate lives 30 days: inside the default 90-day renewal window from the start.
  services = await startTrustServices({ tsaCertDays: 30 });
  t = await signingApp({
    SIGNING_CERT_P12: services.signingP12,
    SIGNING_CERT_PASSWORD: services.signingPassword,
    TSA_URL: services.tsaUrl,
  });
});
afterAll(async () => {
  if (!ready) return;
  await t.stop();
  await services.close();
  await rm(dir, { recursive: true, force: true });
});

const row = (id: string) =>
  t.database.handle.db
    .selectFrom('documents')
    .select([
      'signed_file_key',
      'signed_file_hash',
      'timestamp_expires_at',
      'timestamp_renewal_claimed_until',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe.skipIf(!ready)('archive timestamp renewal', () => {
  it('adds a fresh document timestamp once, even with two instances at it, and audits it', async () => {
    const email = address('renew');
    const doc = await sentDocument(t, { signers: [{ name: 'Ada', email }] });
    await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
      key: null,
      body: { values: {}, signature: typed() },
    });
    await t.settle();
    const before = await row(doc.id);
    expect(before.signed_file_hash).toMatch(/^[0-9a-f]{64}$/);

    const tsaCalls = services.counts.tsa;
    const [a, b] = await Promise.all([
      renewArchiveTimestamps(t.app.deps),
      renewArchiveTimestamps(t.app.deps),
    ]);
    expect(a.failed).toEqual([]);
    expect(b.failed).toEqual([]);
    expect(a.renewed + b.renewed).toBe(1);
    expect(services.counts.tsa).toBe(tsaCalls + 1);
    const after = await row(doc.id);
    expect(after.signed_file_hash).not.toBe(before.signed_file_hash);
    expect(await t.app.deps.storage.stat(before.signed_file_key!)).toBeNull();
    expect(
      (await auditActions(t, doc.id)).filter((x) => x === 'document.timestamp_renewed'),
    ).toHaveLength(1);

    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    const bytes = download.rawPayload;
    expect(sha256(bytes).toString('hex')).toBe(after.signed_file_hash);
    const file = path.join(dir, 'renewed.pdf');
    await writeFile(file, bytes);
    const { report, dumps } = pdfsigDump(file);
    expect(report.split(/Signature #\d+:/)).toHaveLength(4); // the signature and two document timestamps
    expect(report.split(/Signature #\d+:/)[1]).toContain('Signature is Valid');
    expect(
      opensslTsVerify(
        dir,
        dumps[2],
        sha256(signedBytes(file, report, 2)),
        services.caPem,
        services.tsaPem,
      ),
    ).toContain('Verification: OK');
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/pdf' },
      payload: bytes,
    });
    expect(verified.json().data).toMatchObject({
      signatures: [{ valid: true, level: 'B-LTA' }],
      modifiedAfterLastSignature: false,
      document: { id: doc.id },
    });

    // The authority's certificates live shorter than the window: the next renewal waits a week.
    expect(await renewArchiveTimestamps(t.app.deps)).toEqual({ renewed: 0, failed: [] });
    t.clock.advance(8 * 24 * 3600 * 1000);
    expect((await renewArchiveTimestamps(t.app.deps)).renewed).toBe(1);
  });

  it('a TSA that is down leaves the file as it was and tries again after the claim lapses', async () => {
    const email = address('renew-down');
    const doc = await sentDocument(t, { signers: [{ name: 'Ada', email }] });
    await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
      key: null,
      body: { values: {}, signature: typed() },
    });
    await t.settle();
    const before = await row(doc.id);
    services.mode.tsa = 'down';
    try {
      const result = await renewArchiveTimestamps(t.app.deps);
      expect(result.failed.map((f) => f.documentId)).toContain(doc.id);
      expect((await row(doc.id)).signed_file_hash).toBe(before.signed_file_hash);
      expect((await renewArchiveTimestamps(t.app.deps)).failed).toEqual([]); // claimed for an hour
    } finally {
      services.mode.tsa = 'ok';
    }
    t.clock.advance(61 * 60 * 1000);
    const retried = await renewArchiveTimestamps(t.app.deps);
    expect(retried.failed).toEqual([]);
    expect((await row(doc.id)).signed_file_hash).not.toBe(before.signed_file_hash);
  });
});
