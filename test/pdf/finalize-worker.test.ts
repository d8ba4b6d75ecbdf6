import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizeInWorker } from '../../src/pdf/finalize-worker.ts';
import { PdfWorkers } from '../../src/pdf/pdf-workers.ts';
import { WorkerLimitError } from '../../src/pdf/bounded-worker.ts';
import { PdfLimitError } from '../../src/pdf/syntax.ts';
import { objectStreamBomb } from '../hostile/bombs.ts';
import {
  checkSignature,
  hasPoppler,
  makePdf,
  poppler,
  sampleInput,
  sha256,
} from './pdf-helpers.ts';

let dir: string;
const workers = new PdfWorkers();
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-worker-'));
});
afterAll(async () => {
  await workers.close();
  await rm(dir, { recursive: true, force: true });
});

const certConfig = () => ({
  dataDir: path.join(dir, 'data'),
  signingCertP12: undefined,
  signingCertPassword: undefined,
  generatedCertPassword: 'a-test-password',
});

describe('finalizeInWorker', () => {
  it('signs on the worker thread with the certificate from the config, calls queued one after another', async () => {
    const original = await makePdf({ pages: 20, useObjectStreams: true });
    const source = path.join(dir, 'in.pdf');
    await writeFile(source, original);
    const input = sampleInput(source, sha256(original), [
      {
        type: 'signature',
        draw: 'mark' as const,
        page: 20,
        x: 10,
        y: 80,
        width: 30,
        height: 6,
        value: 'Bob Stone',
      },
    ]);

    const outputs = [path.join(dir, 'a.pdf'), path.join(dir, 'b.pdf')];
    const results = await Promise.all(
      outputs.map((out) => finalizeInWorker(workers, input, certConfig(), out)),
    );

    // The worker created the default certificate where the config says; it is the one used.
    const cert = await loadSigningCertificate(certConfig());
    for (const [i, out] of outputs.entries()) {
      const signed = await readFile(out);
      expect(results[i]).toEqual({
        sha256: sha256(signed),
        size: signed.length,
        level: 'B-B',
        timestampExpiresAt: null,
      });
      const check = checkSignature(signed);
      expect(check).toMatchObject({ digestMatches: true, signatureValid: true });
      expect(check.certificateDer.equals(cert.chain[0])).toBe(true);
      if (hasPoppler) expect(poppler('pdfsig', [out]).output).toContain('Signature is Valid');
    }
    // Same input, same certificate: the same file.
    expect(results[0].sha256).toBe(results[1].sha256);
  });

  it('rejects with the error raised in the worker, and keeps serving afterwards', async () => {
    const input = sampleInput(path.join(dir, 'missing.pdf'), '0'.repeat(64), []);
    await expect(
      finalizeInWorker(workers, input, certConfig(), path.join(dir, 'never.pdf')),
    ).rejects.toThrow(/ENOENT/);

    const badCert = { ...certConfig(), signingCertP12: path.join(dir, 'absent.p12') };
    const original = await makePdf({ pages: 1, useObjectStreams: false });
    await writeFile(path.join(dir, 'ok.pdf'), original);
    const okInput = sampleInput(path.join(dir, 'ok.pdf'), sha256(original), []);
    await expect(
      finalizeInWorker(workers, okInput, badCert, path.join(dir, 'never.pdf')),
    ).rejects.toMatchObject({
      name: 'SigningCertificateError',
    });
    const result = await finalizeInWorker(
      workers,
      okInput,
      certConfig(),
      path.join(dir, 'ok-out.pdf'),
    );
    expect(result.size).toBeGreaterThan(original.length);
  });

  it('fails a sealing that runs past its deadline with WorkerLimitError, and the next one gets a fresh thread', async () => {
    const original = await makePdf({ pages: 30, useObjectStreams: true });
    await writeFile(path.join(dir, 'slow.pdf'), original);
    const input = sampleInput(path.join(dir, 'slow.pdf'), sha256(original), []);
    const started = Date.now();
    await expect(
      finalizeInWorker(workers, input, certConfig(), path.join(dir, 'slow-out.pdf'), 5),
    ).rejects.toBeInstanceOf(WorkerLimitError);
    expect(Date.now() - started).toBeLessThan(2000);
    const result = await finalizeInWorker(
      workers,
      input,
      certConfig(),
      path.join(dir, 'slow-out.pdf'),
    );
    expect(result.size).toBeGreaterThan(original.length);
  });

  it('rejects an inflate bomb with PdfLimitError instead of inflating it', async () => {
    const bomb = await objectStreamBomb(1024 * 1024 * 1024);
    await writeFile(path.join(dir, 'bomb.pdf'), bomb);
    const input = sampleInput(path.join(dir, 'bomb.pdf'), sha256(bomb), []);
    await expect(
      finalizeInWorker(workers, input, certConfig(), path.join(dir, 'bomb-out.pdf')),
    ).rejects.toBeInstanceOf(PdfLimitError);
  });
});
