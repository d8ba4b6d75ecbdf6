import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_OPENSSL_REASON,
  hasOpenssl,
  startTrustServices,
  type TrustServices,
} from '../helpers/trust-services.ts';
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
 * Sealing at PAdES B-LTA against a local TSA, OCSP responder and CRL server: a level that
 * cannot be reached is an ordinary sealing failure (retried on SEALING_RETRY_SCHEDULE, then
 * action_required), never a file sealed at a lower level; reseal completes it once the
 * authority answers.
 */
if (!hasOpenssl) console.warn(NO_OPENSSL_REASON);

let t: SigningTest;
let services: TrustServices;

beforeAll(async () => {
  if (!hasOpenssl) return;
  services = await startTrustServices();
  t = await signingApp({
    SIGNING_CERT_P12: services.signingP12,
    SIGNING_CERT_PASSWORD: services.signingPassword,
    TSA_URL: services.tsaUrl,
    TSA_USERNAME: 'acme',
    TSA_PASSWORD: 'tsa-secret',
    SEALING_RETRY_SCHEDULE: '200ms,200ms',
  });
});
afterAll(async () => {
  if (!hasOpenssl) return;
  await t.stop();
  await services.close();
});

async function allSigned() {
  const email = address('lta');
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
const jobOf = (id: string) =>
  t.database.handle.db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', 'finalize')
    .where('payload', 'like', `%${id}%`)
    .executeTakeFirstOrThrow();

async function runOutOfAttempts(id: string) {
  await t.settle();
  expect(await jobOf(id)).toMatchObject({ status: 'pending', attempts: 1 });
  expect((await detailOf(id)).status).toBe('pending');
  t.clock.advance(200);
  await t.settle();
  expect(await jobOf(id)).toMatchObject({ status: 'pending', attempts: 2 });
  t.clock.advance(200);
  await t.settle();
  expect(await jobOf(id)).toMatchObject({ status: 'failed', attempts: 3 });
}

describe.skipIf(!hasOpenssl)('sealing at B-LTA with a time-stamping authority', () => {
  it('seals at B-LTA: the file verifies at that level and the level and timestamp expiry are recorded', async () => {
    const doc = await allSigned();
    await t.settle();
    const detail = await detailOf(doc.id);
    expect(detail.status).toBe('completed');
    const row = await t.database.handle.db
      .selectFrom('documents')
      .select(['pades_level', 'timestamp_expires_at'])
      .where('id', '=', doc.id)
      .executeTakeFirstOrThrow();
    expect(row.pades_level).toBe('B-LTA');
    expect(row.timestamp_expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(services.tsaAuthorizations.at(-1)).toBe(
      `Basic ${Buffer.from('acme:tsa-secret').toString('base64')}`,
    );
    const file = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    const report = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/pdf' },
      payload: file.rawPayload,
    });
    expect(report.json().data).toMatchObject({
      signatures: [
        {
          valid: true,
          level: 'B-LTA',
          revocationEmbedded: true,
          timestamp: { authority: 'Signet Test TSA', valid: true },
        },
      ],
      modifiedAfterLastSignature: false,
      document: { id: doc.id, status: 'completed' },
    });
  });

  it('TSA down: retried on SEALING_RETRY_SCHEDULE, then action_required; reseal completes it once the TSA is back', async () => {
    services.mode.tsa = 'down';
    try {
      const doc = await allSigned();
      await runOutOfAttempts(doc.id);
      const detail = await detailOf(doc.id);
      expect(detail.status).toBe('action_required');
      expect(detail.actionRequired.reason).toBe('sealing_failed');
      expect(detail.actionRequired.message).toContain('time-stamping authority unreachable');
      expect(detail.actionRequired.message).not.toContain('tsa-secret');
      expect(detail.signedFileHash).toBe('');

      services.mode.tsa = 'ok';
      expect((await t.request('POST', `/api/v1/documents/${doc.id}/reseal`)).status).toBe(200);
      await t.settle();
      expect((await detailOf(doc.id)).status).toBe('completed');
      expect(await auditActions(t, doc.id)).toEqual(
        expect.arrayContaining([
          'document.action_required',
          'document.reseal_requested',
          'document.completed',
        ]),
      );
    } finally {
      services.mode.tsa = 'ok';
    }
  });

  it('TSA answers garbage: refused, never sealed at a lower level', async () => {
    services.mode.tsa = 'garbage';
    try {
      const doc = await allSigned();
      await runOutOfAttempts(doc.id);
      const detail = await detailOf(doc.id);
      expect(detail.status).toBe('action_required');
      expect(detail.actionRequired.message).toContain(
        "time-stamping authority's answer is unreadable",
      );
      expect(detail.signedFileHash).toBe('');
      const row = await t.database.handle.db
        .selectFrom('documents')
        .select(['pades_level', 'signed_file_key'])
        .where('id', '=', doc.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ pades_level: null, signed_file_key: null });
    } finally {
      services.mode.tsa = 'ok';
    }
  });

  it('OCSP and CRL down at B-LTA: action_required too', async () => {
    services.mode.ocsp = services.mode.crl = 'down';
    try {
      const doc = await allSigned();
      await runOutOfAttempts(doc.id);
      expect((await detailOf(doc.id)).actionRequired.message).toContain(
        'CRL distribution point unreachable',
      );
    } finally {
      services.mode.ocsp = services.mode.crl = 'ok';
    }
  });
});
