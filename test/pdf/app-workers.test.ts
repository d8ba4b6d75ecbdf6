import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeInWorker } from '../../src/pdf/finalize-worker.ts';
import { findTextInWorker } from '../../src/pdf/text-search.ts';
import { verifyInWorker } from '../../src/pdf/verify-worker.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { samplePdf } from '../helpers/factories.ts';
import { sampleInput, sha256 } from './pdf-helpers.ts';

/*
 * Each app owns its PDF worker threads (AppDeps.pdf): two apps in one process share none, and
 * closing one stops its threads while the other keeps verifying, sealing and searching text.
 */

let dir: string;
let file: string;
let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-app-workers-'));
  file = path.join(dir, 'in.pdf');
  await writeFile(file, await samplePdf(1, 'Hello'));
  [first, second] = await Promise.all([buildTestApp(), buildTestApp()]);
});
afterAll(async () => {
  await second?.close();
  await rm(dir, { recursive: true, force: true });
});

const certConfig = () => ({
  dataDir: path.join(dir, 'data'),
  signingCertP12: undefined,
  signingCertPassword: undefined,
  generatedCertPassword: 'a-test-password',
});

async function useAll(t: TestApp) {
  const pdf = t.app.deps.pdf;
  const report = await verifyInWorker(pdf, file, 'public');
  const [hello] = await findTextInWorker(pdf, file, ['Hello']);
  const out = path.join(dir, `sealed-${Math.random().toString(36).slice(2)}.pdf`);
  const sealed = await finalizeInWorker(
    pdf,
    sampleInput(file, sha256(await readFile(file)), []),
    certConfig(),
    out,
  );
  return { report, hello, sealed };
}

describe('PDF worker threads per app', () => {
  it('closing one app stops its threads; the other keeps verifying, sealing and searching', async () => {
    const before = await useAll(first);
    expect(before.hello.length).toBeGreaterThan(0);
    expect(before.sealed.sha256).toMatch(/^[0-9a-f]{64}$/);
    await useAll(second);
    // verify (public lane), text search and sealing: three threads in each app.
    expect(first.app.deps.pdf.started).toBe(3);
    expect(second.app.deps.pdf.started).toBe(3);

    await first.close();
    expect(first.app.deps.pdf.started).toBe(0);

    const after = await useAll(second);
    expect(after.report).toEqual(before.report);
    expect(after.hello).toEqual(before.hello);
    expect(after.sealed.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(second.app.deps.pdf.started).toBe(3);
  }, 120_000);
});
