import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import { assembleUpdate } from '../../src/pdf/incremental.ts';
import type { PadesLevel } from '../../src/pdf/long-term.ts';
import { readDocumentTree } from '../../src/pdf/pages.ts';
import { PdfFile } from '../../src/pdf/reader.ts';
import { PdfRef, serializeIndirect } from '../../src/pdf/syntax.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import {
  NO_OPENSSL_REASON,
  hasOpenssl,
  startTrustServices,
  type TrustServices,
} from '../helpers/trust-services.ts';
import { makePdf, sampleInput, sha256 } from '../pdf/pdf-helpers.ts';

/** POST /api/v1/verify and the public POST /verify/check, on files sealed at each level against a local TSA. */
if (!hasOpenssl) console.warn(NO_OPENSSL_REASON);

let t: TestApp;
let dir: string;
let services: TrustServices;
const signed = new Map<PadesLevel, Buffer>();

beforeAll(async () => {
  t = await buildTestApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-verify-'));
  const original = await makePdf({ pages: 1, useObjectStreams: false });
  await writeFile(path.join(dir, 'in.pdf'), original);
  if (!hasOpenssl) return;
  services = await startTrustServices();
  const cert = await loadSigningCertificate({
    dataDir: dir,
    signingCertP12: services.signingP12,
    signingCertPassword: services.signingPassword,
    generatedCertPassword: 'a-test-password',
  });
  for (const level of ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const) {
    const out = path.join(dir, `${level}.pdf`);
    await finalizePdf(sampleInput(path.join(dir, 'in.pdf'), sha256(original), []), cert, out, {
      level,
      tsa: { url: services.tsaUrl },
    });
    signed.set(level, await readFile(out));
  }
});
afterAll(async () => {
  await t.close();
  await services?.close();
  await rm(dir, { recursive: true, force: true });
});

const verify = (bytes: Buffer, key?: string | null) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/verify',
    headers: {
      'content-type': 'application/pdf',
      ...(key === null ? {} : { authorization: `Bearer ${key ?? t.key}` }),
    },
    payload: bytes,
  });

describe.skipIf(!hasOpenssl)('POST /api/v1/verify', () => {
  it('describes each level: validity, coverage, certificate, timestamp, revocation data', async () => {
    const expected = {
      'B-B': { timestamp: false, revocation: false, whole: true },
      'B-T': { timestamp: true, revocation: false, whole: true },
      'B-LT': { timestamp: true, revocation: true, whole: false },
      'B-LTA': { timestamp: true, revocation: true, whole: false },
    } as const;
    for (const [level, bytes] of signed) {
      const res = await verify(bytes);
      expect(res.statusCode).toBe(200);
      const { data } = res.json();
      expect(data.modifiedAfterLastSignature).toBe(false);
      expect(data.document).toBeNull();
      expect(data.signatures).toHaveLength(1);
      const sig = data.signatures[0];
      expect(sig).toMatchObject({
        valid: true,
        level,
        coversWholeDocument: expected[level].whole,
        revocationEmbedded: expected[level].revocation,
        certificate: {
          subject: 'CN=Acme Signing Test, O=Acme',
          issuer: 'CN=Signet Test Root CA, O=Signet Tests',
          serialNumber: '1001',
          selfSigned: false,
        },
      });
      if (expected[level].timestamp) {
        expect(sig.timestamp).toMatchObject({ authority: 'Signet Test TSA', valid: true });
        expect(sig.signedAt).toBe(sig.timestamp.time);
      } else {
        expect(sig.timestamp).toBeNull();
        expect(sig.signedAt).toBe('2025-03-04T10:20:30.000Z'); // the claimed /M
      }
    }
  });

  it('a changed byte under the signature makes it invalid; a page changed after it is reported', async () => {
    const tampered = Buffer.from(signed.get('B-T')!);
    // A byte of the first content stream's data, inside the first signed range.
    const at = tampered.indexOf('stream\n') + 20;
    expect(at).toBeGreaterThan(20);
    tampered[at] ^= 0x01;
    const bad = (await verify(tampered)).json().data;
    expect(bad.signatures[0]).toMatchObject({ valid: false, level: null });

    // An incremental update after the B-LTA document timestamp that rotates the page.
    const file = path.join(dir, 'changed.pdf');
    await writeFile(file, signed.get('B-LTA')!);
    const pdf = PdfFile.open(file);
    const tree = readDocumentTree(pdf);
    const page = new Map(tree.pages[0].dict);
    page.set('Rotate', 90);
    let next = pdf.nextObjectNumber;
    const update = assembleUpdate(
      pdf,
      [{ ref: tree.pages[0].ref, bytes: serializeIndirect(tree.pages[0].ref, page) }],
      {
        id: pdf.trailer.get('ID')!,
        allocXrefStream: () => new PdfRef(next++, 0),
      },
    );
    pdf.close();
    const changed = Buffer.concat([signed.get('B-LTA')!, update.bytes]);
    const report = (await verify(changed)).json().data;
    expect(report.modifiedAfterLastSignature).toBe(true);
    expect(report.signatures[0]).toMatchObject({ valid: true, coversWholeDocument: false });
  });

  it("names the caller's own document whose signed file has this hash, never another organization's", async () => {
    const bytes = signed.get('B-LTA')!;
    const created = await t.request('POST', '/api/v1/documents', { body: { name: 'Lease 2026' } });
    expect(created.status).toBe(201);
    await t.database.handle.db
      .updateTable('documents')
      .set({
        signed_file_hash: sha256(bytes),
        status: 'completed',
        completed_at: '2026-01-02T03:04:05.000Z',
      })
      .where('id', '=', created.body.data.id)
      .execute();
    const mine = (await verify(bytes)).json().data;
    expect(mine.document).toEqual({
      id: created.body.data.id,
      name: 'Lease 2026',
      status: 'completed',
      completedAt: '2026-01-02T03:04:05.000Z',
    });
    const other = await t.newOrg('Other');
    expect((await verify(bytes, other.key)).json().data.document).toBeNull();
    const pub = await t.app.inject({
      method: 'POST',
      url: '/verify/check',
      headers: { 'content-type': 'application/pdf' },
      payload: bytes,
    });
    expect(pub.statusCode).toBe(200);
    expect(pub.json().data.document).toBeNull();
    expect(pub.json().data.signatures[0].level).toBe('B-LTA');
  });
});

describe('POST /api/v1/verify: input', () => {
  it("calls Signet's own generated certificate self-signed (it has no keyCertSign to vouch with)", async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), 'signet-verify-own-'));
    try {
      const cert = await loadSigningCertificate({
        dataDir: own,
        signingCertP12: undefined,
        signingCertPassword: undefined,
        generatedCertPassword: 'a-test-password',
      });
      const original = await readFile(path.join(dir, 'in.pdf'));
      const out = path.join(own, 'own.pdf');
      await finalizePdf(sampleInput(path.join(dir, 'in.pdf'), sha256(original), []), cert, out, {
        level: 'B-B',
        tsa: null,
      });
      const res = await verify(await readFile(out));
      expect(res.statusCode).toBe(200);
      const { certificate } = res.json().data.signatures[0];
      expect(certificate.issuer).toBe(certificate.subject);
      expect(certificate.selfSigned).toBe(true);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('reports an unsigned PDF as having no signatures', async () => {
    const res = await verify(await readFile(path.join(dir, 'in.pdf')));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      signatures: [],
      modifiedAfterLastSignature: false,
      document: null,
    });
  });

  it('refuses what is not a PDF (415), an empty body (400), over 50 MB (413), no key (401), a key without documents.read (403)', async () => {
    expect((await verify(Buffer.from('hello, not a pdf'))).statusCode).toBe(415);
    expect((await verify(Buffer.from('%PDF-1.7\nthis is not really one'))).json().error.code).toBe(
      'unsupported_media_type',
    );
    expect((await verify(Buffer.alloc(0))).statusCode).toBe(400);
    const big = await verify(
      Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(50 * 1024 * 1024)]),
    );
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
    expect((await verify(Buffer.from('%PDF-1.7'), null)).statusCode).toBe(401);
    const readless = await t.keyWith(['documents.write']);
    expect((await verify(Buffer.from('%PDF-1.7'), readless)).statusCode).toBe(403);
  });

  it('is in the OpenAPI document with its binary body and report', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = spec.paths['/api/v1/verify'].post;
    expect(op.operationId).toBe('verifyPdf');
    expect(Object.keys(op.requestBody.content)).toEqual(['application/pdf']);
    expect(JSON.stringify(op.responses['200'])).toContain('modifiedAfterLastSignature');
    expect(spec.paths['/verify/check']).toBeUndefined();
  });

  it('the public check is rate limited per IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/verify/check',
        remoteAddress: '198.51.100.77',
        headers: { 'content-type': 'application/pdf' },
        payload: Buffer.from('x'),
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 10).every((s) => s === 415)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/verify/check',
      remoteAddress: '198.51.100.78',
      headers: { 'content-type': 'application/pdf' },
      payload: Buffer.from('x'),
    });
    expect(elsewhere.statusCode).toBe(415);
  });
});
