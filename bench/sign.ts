/**
 * `node --import tsx bench/sign.ts` (`npm run bench:sign`): the signed-PDF finalizer.
 *  1. A 20-page, ~1 MB PDF with 2 signers (a typed and a drawn signature, dates, initials on
 *     every page): N runs of `finalizePdf` in this process (after warm-up), median and p95,
 *     for a classic xref table and for an xref stream; then the same through the worker.
 *  2. A ~50 MB PDF: `finalizePdf` in a fresh child process, whose peak RSS
 *     (`process.resourceUsage().maxRSS`) is reported next to its RSS before the call.
 * Figures only, no verdict. BENCH_SIGN_RUNS changes N (20).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PDFDocument,
  PDFName,
  StandardFonts,
  concatTransformationMatrix,
  drawObject,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import { loadSigningCertificate, type SigningCertConfig } from '../src/pdf/certificate.ts';
import { finalizePdf, type FinalizeField, type FinalizeInput } from '../src/pdf/finalize.ts';
import type { LongTermConfig } from '../src/pdf/long-term.ts';
import { FontCache } from '../src/fonts/font-cache.ts';

const RUNS = Number(process.env.BENCH_SIGN_RUNS ?? 20);
export const SELF = fileURLToPath(import.meta.url);

/** Pages each carrying incompressible image data (`imageSide`² RGB pixels), so the size is real. */
export async function makeDocument(
  pages: number,
  imageSide: number,
  useObjectStreams: boolean,
): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Agreement page ${i}`, { x: 60, y: 780, size: 16, font });
    const image = doc.context.register(
      doc.context.stream(randomBytes(imageSide * imageSide * 3), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: imageSide,
        Height: imageSide,
        ColorSpace: 'DeviceRGB',
        BitsPerComponent: 8,
      }),
    );
    page.node.setXObject(PDFName.of('Noise'), image);
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(300, 0, 0, 300, 150, 300),
      drawObject('Noise'),
      popGraphicsState(),
    );
  }
  return Buffer.from(await doc.save({ useObjectStreams }));
}

export async function drawnSignature(): Promise<string> {
  // Imported here so the measured child process never loads sharp.
  const { default: sharp } = await import('sharp');
  const [w, h] = [300, 100];
  const pixels = Buffer.alloc(w * h * 4);
  for (let x = 10; x < w - 10; x++) {
    const y = Math.round(h / 2 + Math.sin(x / 15) * 30);
    for (let dy = -2; dy <= 2; dy++) pixels.writeUInt32BE(0x102060ff, ((y + dy) * w + x) * 4);
  }
  const png = await sharp(pixels, { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

export function inputFor(sourcePath: string, pages: number, png: string): FinalizeInput {
  const fields: FinalizeField[] = [
    {
      type: 'signature',
      draw: 'mark' as const,
      page: pages,
      x: 10,
      y: 75,
      width: 30,
      height: 7,
      value: 'Alice Martin',
    },
    {
      type: 'date',
      draw: 'text' as const,
      page: pages,
      x: 10,
      y: 83,
      width: 20,
      height: 3,
      value: '2025-03-04',
    },
    {
      type: 'signature',
      draw: 'mark' as const,
      page: pages,
      x: 55,
      y: 75,
      width: 30,
      height: 7,
      value: png,
    },
    {
      type: 'name',
      draw: 'text' as const,
      page: pages,
      x: 55,
      y: 83,
      width: 30,
      height: 3,
      value: 'Bob Stone',
    },
    {
      type: 'checkbox',
      draw: 'tick' as const,
      page: 1,
      x: 10,
      y: 90,
      width: 3,
      height: 2,
      value: 'true',
    },
  ];
  for (let page = 1; page <= pages; page++) {
    fields.push({
      type: 'initials',
      draw: 'mark' as const,
      page,
      x: 85,
      y: 94,
      width: 8,
      height: 3,
      value: 'AM',
    });
  }
  const signer = (name: string, email: string, ip: string) => ({
    name,
    email,
    role: 'signer',
    signedAt: '2025-03-04T10:00:00.000Z',
    ipAddress: ip,
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    geoCity: 'Lyon',
    geoCountry: 'FR',
  });
  return {
    sourcePath,
    document: {
      id: 'doc_bench',
      name: 'Benchmark agreement',
      documentHash: 'ab'.repeat(32),
      completedAt: '2025-03-04T10:20:30.000Z',
    },
    signers: [
      signer('Alice Martin', 'alice@example.test', '203.0.113.7'),
      signer('Bob Stone', 'bob@example.test', '198.51.100.23'),
    ],
    fields,
  };
}

/** The q-quantile of `ms` (nearest rank). */
export function quantile(ms: number[], q: number): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function stats(ms: number[]): string {
  return `median ${quantile(ms, 0.5).toFixed(1)} ms, p95 ${quantile(ms, 0.95).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms (n=${ms.length})`;
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function pdfsigVerdict(file: string): string {
  const r = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  if (r.error) return 'pdfsig not installed';
  const valid = /Signature is Valid/.test(r.stdout) && /Total document signed/.test(r.stdout);
  return valid ? 'pdfsig: valid, total document signed' : `pdfsig: NOT VALID\n${r.stdout}`;
}

/**
 * This process's peak RSS. On Linux, VmHWM: `resourceUsage().maxRSS` survives exec() and so
 * starts at the parent's RSS at fork time (this benchmark's parent holds ~200 MB then).
 */
function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Child mode: finalize one file and report timings and memory as JSON on stdout. */
async function child(args: {
  input: FinalizeInput;
  certConfig: SigningCertConfig;
  output: string;
  longTerm?: LongTermConfig;
}): Promise<void> {
  const cert = await loadSigningCertificate(args.certConfig);
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = peakRss();
  const started = performance.now();
  await finalizePdf(args.input, cert, args.output, args.longTerm);
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, rssBefore, peakBefore, peak: peakRss() }));
}

export interface FinalizeFigures {
  /** 20 pages, xref stream: median and p95 of `finalizePdf` in-process, and through the worker. */
  pages20MedianMs: number;
  pages20P95Ms: number;
  workerMedianMs: number;
  /** ~50 MB (200 pages): peak RSS of a fresh process finalizing it, and its duration. */
  bigFileMb: number;
  bigPeakRssMb: number;
  bigMs: number;
  /** pdfsig's verdict on every output, or null when pdfsig is not installed. */
  pdfsigValid: boolean | null;
}

const round1 = (n: number) => Number(n.toFixed(1));

/** Runs both measurements of the file header; `log` receives the human-readable lines. */
export async function measureFinalize(
  log: (line: string) => void = () => {},
): Promise<FinalizeFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'signet-bench-sign-'));
  const certConfig: SigningCertConfig = {
    dataDir: path.join(dir, 'data'),
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  };
  const verdicts: (boolean | null)[] = [];
  const verdict = (file: string) => {
    const v = pdfsigVerdict(file);
    verdicts.push(v === 'pdfsig not installed' ? null : v.startsWith('pdfsig: valid'));
    return v;
  };
  try {
    const cert = await loadSigningCertificate(certConfig);
    const png = await drawnSignature();
    // As the sealing worker does: fonts loaded once, kept for every later document.
    const fonts = new FontCache();
    let pages20: number[] = [];
    const worker: number[] = [];

    for (const useObjectStreams of [false, true]) {
      const pdf = await makeDocument(20, 128, useObjectStreams);
      const source = path.join(dir, `doc20-${useObjectStreams}.pdf`);
      writeFileSync(source, pdf);
      const input = inputFor(source, 20, png);
      const output = path.join(dir, `doc20-${useObjectStreams}-signed.pdf`);
      for (let i = 0; i < 3; i++) await finalizePdf(input, cert, output, undefined, fonts);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        await finalizePdf(input, cert, output, undefined, fonts);
        times.push(performance.now() - started);
      }
      const label = useObjectStreams ? 'xref stream + object streams' : 'classic xref table';
      log(
        `20 pages, ${mb(pdf.length)} (${label}), 2 signers, ${input.fields.length} fields → ${mb(statSync(output).size)}`,
      );
      log(`  finalizePdf in-process: ${stats(times)}`);
      log(`  ${verdict(output)}`);
      if (useObjectStreams) {
        pages20 = times;
        const { finalizeInWorker } = await import('../src/pdf/finalize-worker.ts');
        const { PdfWorkers } = await import('../src/pdf/pdf-workers.ts');
        const workers = new PdfWorkers();
        await finalizeInWorker(workers, input, certConfig, output); // starts the worker, loads the certificate
        for (let i = 0; i < RUNS; i++) {
          const started = performance.now();
          await finalizeInWorker(workers, input, certConfig, output);
          worker.push(performance.now() - started);
        }
        log(`  finalizeInWorker round trip: ${stats(worker)}`);
        await workers.close();
      }
    }

    const big = await makeDocument(200, 295, true);
    const bigSource = path.join(dir, 'doc50.pdf');
    writeFileSync(bigSource, big);
    const bigOutput = path.join(dir, 'doc50-signed.pdf');
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
        JSON.stringify({ input: inputFor(bigSource, 200, png), certConfig, output: bigOutput }),
      );
    });
    const r = JSON.parse(report) as {
      ms: number;
      rssBefore: number;
      peakBefore: number;
      peak: number;
    };
    log(
      `\n200 pages, ${mb(big.length)} (xref stream), 2 signers, 205 fields → ${mb(statSync(bigOutput).size)}, in a child process`,
    );
    log(
      `  peak RSS of the process ${mb(r.peak)} (RSS ${mb(r.rssBefore)} before the call, peak ${mb(r.peakBefore)}); took ${r.ms.toFixed(0)} ms`,
    );
    log(`  ${verdict(bigOutput)}`);
    return {
      pages20MedianMs: round1(quantile(pages20, 0.5)),
      pages20P95Ms: round1(quantile(pages20, 0.95)),
      workerMedianMs: round1(quantile(worker, 0.5)),
      bigFileMb: round1(big.length / 2 ** 20),
      bigPeakRssMb: round1(r.peak / 2 ** 20),
      bigMs: Math.round(r.ms),
      pdfsigValid: verdicts.includes(null) ? null : verdicts.every(Boolean),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) {
  let stdin = '';
  process.stdin.on('data', (d) => (stdin += d));
  process.stdin.on('end', () => void child(JSON.parse(stdin)));
} else if (process.argv[1] === SELF) {
  console.log(`Signet signed-PDF benchmark on ${os.cpus().length} CPU(s), Node ${process.version}`);
  console.log(
    '(a shared machine: other work may run at the same time, figures vary between runs)\n',
  );
  await measureFinalize(console.log);
}
