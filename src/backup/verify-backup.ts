import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { BackupFileMissing, type BackupLocation } from './location.ts';
import {
  MANIFEST,
  MAX_MANIFEST_BYTES,
  ManifestError,
  keyIdOf,
  manifestIsAuthentic,
  parseManifest,
  type Manifest,
} from './manifest.ts';
import { Meter } from './meter.ts';
import { silentProgress, type Progress } from './progress.ts';

/**
 * What `verify` concludes:
 * - intact: every file matches the manifest, whose HMAC SECRET_KEY confirms;
 * - corrupted: the manifest is genuine but a file does not match it (or is missing);
 * - tampered: the manifest's HMAC is wrong under the very key that made it: someone changed it;
 * - other_key: made with another SECRET_KEY, so its authenticity cannot be checked here;
 * - unauthenticated: no SECRET_KEY to check it with (the files were checked);
 * - incomplete: no manifest (the backup did not finish, or this is not a backup).
 */
export type VerifyStatus =
  | 'intact'
  | 'corrupted'
  | 'tampered'
  | 'other_key'
  | 'unauthenticated'
  | 'incomplete';

interface VerifyReport {
  status: VerifyStatus;
  /** One sentence a person acts on. */
  message: string;
  /** Each file that does not match, at most MAX_PROBLEMS of them. */
  problems: string[];
  manifest: Manifest | null;
}

const MAX_PROBLEMS = 100;

export async function readManifest(location: BackupLocation): Promise<Manifest> {
  const stream = await location.read(MANIFEST);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_MANIFEST_BYTES) {
      stream.destroy();
      throw new ManifestError(
        `manifest.json is over ${MAX_MANIFEST_BYTES} bytes: not a Signet backup`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return parseManifest(Buffer.concat(chunks).toString('utf8'));
}

/** Reads `name` through, comparing its size and SHA-256 (and line count, for a table) with the manifest's. */
async function checkFile(
  location: BackupLocation,
  name: string,
  want: { bytes: number; sha256: string; rows?: number },
): Promise<string | null> {
  let stream: Readable;
  try {
    stream = await location.read(name);
  } catch (err) {
    if (err instanceof BackupFileMissing) return `${name}: missing`;
    throw err;
  }
  const meter = new Meter();
  let lines = 0;
  for await (const chunk of stream.pipe(meter)) {
    // Rows are lines: JSON text never holds a raw newline.
    if (want.rows === undefined) continue;
    for (
      let at = (chunk as Buffer).indexOf(10);
      at !== -1;
      at = (chunk as Buffer).indexOf(10, at + 1)
    )
      lines++;
  }
  if (meter.bytes !== want.bytes)
    return `${name}: ${meter.bytes} bytes, the manifest says ${want.bytes}`;
  if (meter.digest() !== want.sha256) return `${name}: its SHA-256 is not the manifest's`;
  if (want.rows !== undefined && lines !== want.rows)
    return `${name}: ${lines} rows, the manifest says ${want.rows}`;
  return null;
}

/**
 * Every file of the backup read and compared with the manifest (tables, the files index and each
 * file it lists, the instance files); the problems found, at most MAX_PROBLEMS named.
 */
export async function checkContents(
  location: BackupLocation,
  manifest: Manifest,
  progress: Progress = silentProgress,
): Promise<string[]> {
  const problems: string[] = [];
  let more = 0;
  const note = (problem: string | null) => {
    if (problem === null) return;
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
    else more++;
  };
  progress.phase('tables', manifest.tables.length);
  for (const table of manifest.tables) {
    note(await checkFile(location, table.file, table));
    progress.advance(1, table.bytes);
  }
  progress.phase('files', manifest.files.count);
  // The index is checked whole before its entries are trusted, then read again entry by entry.
  const indexProblem = await checkFile(location, manifest.files.index, {
    bytes: manifest.files.indexBytes,
    sha256: manifest.files.indexSha256,
    rows: manifest.files.count,
  });
  note(indexProblem);
  if (indexProblem === null) {
    for await (const entry of indexEntries(location, manifest)) {
      note(await checkFile(location, `files/${entry.key}`, entry));
      progress.advance(1, entry.bytes);
    }
  }
  for (const file of manifest.instance) note(await checkFile(location, file.file, file));
  progress.stop();
  if (more > 0) problems.push(`… and ${more} more`);
  return problems;
}

/** The files the index lists, read as a stream (its hash was checked before it is trusted). */
export async function* indexEntries(
  location: BackupLocation,
  manifest: Manifest,
): AsyncGenerator<{ key: string; bytes: number; sha256: string }> {
  const reader = createInterface({
    input: await location.read(manifest.files.index),
    crlfDelay: Infinity,
  });
  for await (const line of reader) {
    const entry = JSON.parse(line) as { key?: unknown; bytes?: unknown; sha256?: unknown };
    if (
      typeof entry.key !== 'string' ||
      !Number.isSafeInteger(entry.bytes) ||
      typeof entry.sha256 !== 'string'
    )
      throw new ManifestError(`${manifest.files.index}: a line is not {key, bytes, sha256}`);
    yield entry as { key: string; bytes: number; sha256: string };
  }
}

/** `signet backup verify`: whether the backup is whole, and whether it is genuine. */
export async function verifyBackup(
  location: BackupLocation,
  secretKey: Buffer | null,
  progress: Progress = silentProgress,
): Promise<VerifyReport> {
  let manifest: Manifest;
  try {
    manifest = await readManifest(location);
  } catch (err) {
    if (err instanceof BackupFileMissing)
      return {
        status: 'incomplete',
        message: `${location.label} has no manifest.json: the backup did not finish, or this is not a backup`,
        problems: [],
        manifest: null,
      };
    if (err instanceof ManifestError)
      return { status: 'corrupted', message: err.message, problems: [err.message], manifest: null };
    throw err;
  }
  const problems = await checkContents(location, manifest, progress);
  if (
    secretKey &&
    keyIdOf(secretKey) === manifest.keyId &&
    !manifestIsAuthentic(secretKey, manifest)
  )
    return {
      status: 'tampered',
      message:
        'The manifest was changed after the backup was made: its HMAC does not match under the SECRET_KEY that made it. Do not restore this backup.',
      problems,
      manifest,
    };
  if (problems.length > 0)
    return {
      status: 'corrupted',
      message: `${problems.length} file(s) of the backup do not match its manifest (damaged or incomplete copy)`,
      problems,
      manifest,
    };
  if (!secretKey)
    return {
      status: 'unauthenticated',
      message:
        'Every file matches the manifest, but without SECRET_KEY its authenticity cannot be checked',
      problems,
      manifest,
    };
  if (keyIdOf(secretKey) !== manifest.keyId)
    return {
      status: 'other_key',
      message:
        'Every file matches the manifest, but the backup was made with another SECRET_KEY: set the one kept with it to check its authenticity (and to restore it)',
      problems,
      manifest,
    };
  return { status: 'intact', message: 'The backup is intact and genuine', problems, manifest };
}
