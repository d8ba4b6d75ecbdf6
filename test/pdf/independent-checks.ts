import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Checks of signed PDFs by tools Signet did not write: poppler's pdfsig, OpenSSL (cms, ts,
 * ocsp, asn1parse) and qpdf. Only byte slicing happens here; every parse and verification
 * is the tool's.
 */

export const hasQpdf = spawnSync('qpdf', ['--version']).status === 0;

export function run(
  cmd: string,
  args: string[],
  cwd?: string,
): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** pdfsig's report and the CMS/token of each signature, dumped by pdfsig itself (`-dump`). */
export function pdfsigDump(pdf: string): { report: string; dumps: Buffer[] } {
  const dir = path.dirname(pdf);
  const base = path.basename(pdf);
  const report = run('pdfsig', [base], dir).out;
  run('pdfsig', ['-dump', base], dir);
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(`${base}.sig`))
    .sort((a, b) => Number(a.slice(base.length + 4)) - Number(b.slice(base.length + 4)))
    .map((f) => readFileSync(path.join(dir, f)));
  return { report, dumps };
}

/** The bytes a signature covers, per the ranges pdfsig printed for signature `index` (0-based). */
export function signedBytes(pdf: string, report: string, index: number): Buffer {
  const section = report.split(/Signature #\d+:/)[index + 1];
  const ranges = [...section.matchAll(/\[(\d+) - (\d+)\]/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
  const file = readFileSync(pdf);
  return Buffer.concat(ranges.map(([a, b]) => file.subarray(a, b)));
}

/** `openssl cms -verify` of a detached CMS over `content`, trusting `caPem`. */
export function opensslCmsVerify(dir: string, cms: Buffer, content: Buffer, caPem: string): string {
  writeFileSync(path.join(dir, 'check.cms'), cms);
  writeFileSync(path.join(dir, 'check.content'), content);
  return run(
    'openssl',
    [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      'check.cms',
      '-content',
      'check.content',
      '-CAfile',
      caPem,
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ],
    dir,
  ).out;
}

/**
 * The signature-time-stamp token inside a CMS and the signature value it stamps, located by
 * `openssl asn1parse` (offsets and the value's hex are openssl's).
 */
export function signatureTimestampToken(
  dir: string,
  cms: Buffer,
): { token: Buffer; signatureValue: Buffer } | null {
  writeFileSync(path.join(dir, 'parse.cms'), cms);
  const lines = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', 'parse.cms'], {
    cwd: dir,
    encoding: 'utf8',
  }).split('\n');
  const at = lines.findIndex((l) => l.includes(':id-smime-aa-timeStampToken'));
  if (at < 0) return null;
  const tokenLine = /^\s*(\d+):d=\d+\s+hl=(\d+)\s+l=\s*(\d+)/.exec(lines[at + 2])!;
  const start = Number(tokenLine[1]);
  const token = cms.subarray(start, start + Number(tokenLine[2]) + Number(tokenLine[3]));
  const sigLine = lines
    .slice(0, at)
    .reverse()
    .find((l) => l.includes('OCTET STRING') && l.includes('[HEX DUMP]'))!;
  const signatureValue = Buffer.from(sigLine.split('[HEX DUMP]:')[1].trim(), 'hex');
  return { token, signatureValue };
}

/** `openssl ts -verify` of a token over a SHA-256 digest, trusting the test CA. */
export function opensslTsVerify(
  dir: string,
  token: Buffer,
  digest: Buffer,
  caPem: string,
  tsaPem: string,
): string {
  writeFileSync(path.join(dir, 'check.tst'), token);
  return run(
    'openssl',
    [
      'ts',
      '-verify',
      '-token_in',
      '-in',
      'check.tst',
      '-digest',
      digest.toString('hex'),
      '-CAfile',
      caPem,
      '-untrusted',
      tsaPem,
    ],
    dir,
  ).out;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

/** qpdf's view of an object (`trailer` or a number), dictionaries as printed by `--show-object`. */
export function qpdfObject(pdf: string, object: string | number): string {
  return run('qpdf', [`--show-object=${object}`, pdf]).out.trim();
}

/** The raw (undecoded) data of a stream object, as qpdf reads it. */
export function qpdfStream(pdf: string, object: number): Buffer {
  return execFileSync('qpdf', [`--show-object=${object}`, '--raw-stream-data', pdf]);
}

/** The DSS as qpdf reads it: the object numbers in each of its arrays. */
export function qpdfDss(pdf: string): { Certs: number[]; OCSPs: number[]; CRLs: number[] } | null {
  const root = /\/Root (\d+) 0 R/.exec(qpdfObject(pdf, 'trailer'))?.[1];
  const catalog = qpdfObject(pdf, root!);
  const dssRef = /\/DSS (\d+) 0 R/.exec(catalog)?.[1];
  if (!dssRef) return null;
  const dss = qpdfObject(pdf, dssRef);
  const refs = (key: string) => {
    const m = new RegExp(`/${key} \\[([^\\]]*)\\]`).exec(dss);
    return m ? [...m[1].matchAll(/(\d+) 0 R/g)].map((r) => Number(r[1])) : [];
  };
  return { Certs: refs('Certs'), OCSPs: refs('OCSPs'), CRLs: refs('CRLs') };
}
