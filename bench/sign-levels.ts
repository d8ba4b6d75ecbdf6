/**
 * `npm run bench:sign` (second part): finalize time and peak RSS per PAdES level, with a local
 * RFC 3161 TSA, OCSP responder and CRL server (test/helpers/trust-services.ts: Debian's openssl
 * behind node:http, so every timestamp and OCSP answer costs an openssl process start).
 *  1. 20 pages (~1 MB): N runs of `finalizePdf` per level after warm-up; median and p95.
 *  2. ~50 MB: one fresh child process per level; its peak RSS (VmHWM) and duration.
 * Figures only, no verdict. BENCH_SIGN_LEVEL_RUNS changes N (10). Skipped without openssl.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSigningCertificate } from '../src/pdf/certificate.ts';
import { finalizePdf } from '../src/pdf/finalize.ts';
import { PADES_LEVELS } from '../src/pdf/long-term.ts';
import { hasOpenssl, startTrustServices } from '../test/helpers/trust-services.ts';
import { SELF, drawnSignature, inputFor, makeDocument, mb, stats } from './sign.ts';

const RUNS = Number(process.env.BENCH_SIGN_LEVEL_RUNS ?? 10);

async function main(): Promise<void> {
  console.log(
    `Signet PAdES levels benchmark on ${os.cpus().length} CPU(s), Node ${process.version}`,
  );
  console.log(
    '(a shared machine: other work may run at the same time, figures vary between runs)\n',
  );
  if (!hasOpenssl) {
    console.log('openssl not found: the local TSA cannot run; skipped');
    return;
  }
  const services = await startTrustServices();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'signet-bench-levels-'));
  try {
    const certConfig = {
      dataDir: dir,
      signingCertP12: services.signingP12,
      signingCertPassword: services.signingPassword,
      generatedCertPassword: 'a-test-password',
    };
    const cert = await loadSigningCertificate(certConfig);
    const png = await drawnSignature();
    const tsa = { url: services.tsaUrl };
    const source = path.join(dir, 'doc20.pdf');
    writeFileSync(source, await makeDocument(20, 128, true));
    const input = inputFor(source, 20, png);
    console.log(
      `20 pages, ${mb(statSync(source).size)}, xref stream, 2 signers, ${input.fields.length} fields`,
    );
    for (const level of PADES_LEVELS) {
      const output = path.join(dir, `doc20-${level}.pdf`);
      for (let i = 0; i < 2; i++) await finalizePdf(input, cert, output, { level, tsa });
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        await finalizePdf(input, cert, output, { level, tsa });
        times.push(performance.now() - started);
      }
      console.log(`  ${level.padEnd(5)} ${stats(times)} → ${mb(statSync(output).size)}`);
    }

    const bigSource = path.join(dir, 'doc50.pdf');
    writeFileSync(bigSource, await makeDocument(200, 295, true));
    console.log(`\n200 pages, ${mb(statSync(bigSource).size)}, in a fresh child process per level`);
    for (const level of PADES_LEVELS) {
      const output = path.join(dir, `doc50-${level}.pdf`);
      const report = await new Promise<string>((resolve, reject) => {
        const proc = spawn(process.execPath, ['--import', 'tsx', SELF, '--child'], {
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        let out = '';
        proc.stdout.on('data', (d) => (out += d));
        proc.on('error', reject);
        proc.on('exit', (code) =>
          code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}`)),
        );
        proc.stdin.end(
          JSON.stringify({
            input: inputFor(bigSource, 200, png),
            certConfig,
            output,
            longTerm: { level, tsa },
          }),
        );
      });
      const r = JSON.parse(report) as { ms: number; rssBefore: number; peak: number };
      console.log(
        `  ${level.padEnd(5)} peak RSS ${mb(r.peak)} (RSS ${mb(r.rssBefore)} before the call); ${r.ms.toFixed(0)} ms → ${mb(statSync(output).size)}`,
      );
    }
  } finally {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
