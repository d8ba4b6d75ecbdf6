/**
 * `node --import tsx bench/sign-scripts.ts` (part of `npm run bench:sign`): sealing text in
 * other scripts. The 20-page document of bench/sign.ts sealed with Latin-only values, then with
 * Arabic, Japanese, and five scripts at once (Latin, Arabic, Cyrillic, Devanagari, Japanese,
 * in fields, signer names and typed signatures), in one run with one warm font cache (as the
 * sealing worker keeps it): median sealing time of each, its ratio to the Latin-only one, and
 * the bytes each sealed file adds to the original. Figures only. BENCH_SIGN_RUNS sets N (15).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FontCache } from '../src/fonts/font-cache.ts';
import { loadSigningCertificate } from '../src/pdf/certificate.ts';
import { finalizePdf, type FinalizeInput } from '../src/pdf/finalize.ts';
import { drawnSignature, inputFor, makeDocument, quantile, stats } from './sign.ts';

const RUNS = Number(process.env.BENCH_SIGN_RUNS ?? 15);

/** The Latin input with its texts replaced: [signer 1, signer 2, field values…] per script. */
const TEXTS: Record<string, { a: string; b: string; values: string[] }> = {
  'Latin only': { a: 'Alice Martin', b: 'Bob Stone', values: ['Bob Stone'] },
  Arabic: { a: 'محمد علي', b: 'فاطمة الزهراء', values: ['شركة النور للتجارة، الرياض'] },
  Japanese: { a: '山田太郎', b: 'さとう はなこ', values: ['東京都千代田区丸の内一丁目'] },
  'five scripts': {
    a: 'محمد علي',
    b: '山田太郎',
    values: ['Łukasz Dvořák', 'Анна Каренина', 'देवनागरी लिपि', 'شركة النور', '東京都千代田区'],
  },
};

function variant(base: FinalizeInput, texts: (typeof TEXTS)[string]): FinalizeInput {
  const input = structuredClone(base);
  input.signers[0].name = texts.a;
  input.signers[1].name = texts.b;
  input.signers[0].signature = texts.a;
  let v = 0;
  for (const field of input.fields) {
    if (field.type === 'name') field.value = texts.values[v++ % texts.values.length];
    if (field.type === 'signature' && !field.value?.startsWith('data:')) field.value = texts.a;
  }
  // One more field per extra value, so each script is drawn on the page.
  for (const [i, value] of texts.values.entries())
    input.fields.push({
      type: 'text',
      draw: 'text',
      page: 1,
      x: 10,
      y: 20 + i * 5,
      width: 60,
      height: 4,
      value,
    });
  return input;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'signet-bench-scripts-'));
try {
  console.log(`Sealing text in other scripts, ${os.cpus().length} CPU(s), Node ${process.version}`);
  const cert = await loadSigningCertificate({
    dataDir: path.join(dir, 'data'),
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  });
  const pdf = await makeDocument(20, 128, true);
  const source = path.join(dir, 'doc20.pdf');
  writeFileSync(source, pdf);
  const base = inputFor(source, 20, await drawnSignature());
  const fonts = new FontCache();
  const inputs = Object.entries(TEXTS).map(([label, texts]) => ({
    label,
    input: variant(base, texts),
    output: path.join(dir, `${label.replace(/\W+/g, '-')}.pdf`),
    times: [] as number[],
  }));
  for (const v of inputs) {
    const started = performance.now();
    await finalizePdf(v.input, cert, v.output, undefined, fonts);
    console.log(
      `  first sealing of "${v.label}" (fonts loaded): ${(performance.now() - started).toFixed(0)} ms`,
    );
  }
  // Interleaved, so load on the machine weighs on every variant alike.
  for (let i = 0; i < RUNS; i++) {
    for (const v of inputs) {
      const started = performance.now();
      await finalizePdf(v.input, cert, v.output, undefined, fonts);
      v.times.push(performance.now() - started);
    }
  }
  const latin = inputs[0];
  const latinMedian = quantile(latin.times, 0.5);
  const latinAdds = statSync(latin.output).size - pdf.length;
  console.log(
    `\n20 pages, ${pdf.length} bytes; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const v of inputs) {
    const adds = statSync(v.output).size - pdf.length;
    console.log(`${v.label}: ${stats(v.times)}`);
    console.log(
      `  ${(quantile(v.times, 0.5) / latinMedian).toFixed(2)}x the Latin-only time; sealing adds ${(adds / 1024).toFixed(1)} KB (${((adds - latinAdds) / 1024).toFixed(1)} KB more than Latin only)`,
    );
  }
  console.log(`fonts held by the cache: ${(fonts.size / 2 ** 20).toFixed(1)} MB decoded`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
