import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { StringEnum } from '../http/schemas.ts';
import { deriveKey } from '../secret-key.ts';
import { COLUMN_TYPES } from './row-codec.ts';

/*
 * A backup is a folder (or an S3 prefix) in a portable, dialect-free format:
 *   manifest.json            what follows, each file with its size and SHA-256, and an HMAC
 *   tables/<table>.jsonl     one row per line, a JSON array of the table's columns in order
 *   files.jsonl              one stored file per line: {key, bytes, sha256}
 *   files/<key>              the stored files themselves
 *   instance/signing-cert.p12  the generated signing certificate, encrypted as it is stored
 * The files' hashes sit in files.jsonl rather than in the manifest so that a backup of millions
 * of files never holds their list in memory; the manifest holds files.jsonl's hash, so every byte
 * is still covered by the one HMAC.
 */

export const FORMAT = 'signet-backup';
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';
export const FILES_INDEX = 'files.jsonl';
/** A manifest is small (tables and counts); anything larger is not one of ours. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Count = Type.Integer({ minimum: 0 });
/** Names inside the backup: relative, `/`-separated, no `..` (checked again where they are opened). */
const Name = Type.String({
  minLength: 1,
  maxLength: 1024,
  pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$)).+$',
});
const Ident = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}$' });

const TableEntry = Type.Object({
  name: Ident,
  file: Name,
  columns: Type.Array(Type.Object({ name: Ident, type: StringEnum(COLUMN_TYPES) }), {
    minItems: 1,
    maxItems: 1000,
  }),
  primaryKey: Type.Array(Ident, { maxItems: 32 }),
  rows: Count,
  bytes: Count,
  sha256: Sha256,
});

const ManifestSchema = Type.Object({
  format: Type.Literal(FORMAT),
  formatVersion: Type.Literal(FORMAT_VERSION),
  createdAt: Type.String(),
  signetVersion: Type.String(),
  source: Type.Object({
    database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
    storage: Type.Union([Type.Literal('local'), Type.Literal('s3')]),
  }),
  /** The migrations applied to the database the backup was taken from. */
  migrations: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10_000 }),
  /** Which SECRET_KEY made the HMAC (a one-way fingerprint), to tell "another key" from "tampered". */
  keyId: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  tables: Type.Array(TableEntry, { maxItems: 1000 }),
  files: Type.Object({
    index: Name,
    count: Count,
    bytes: Count,
    indexBytes: Count,
    indexSha256: Sha256,
  }),
  /** Files listed by storage but deleted before they could be copied (e.g. a purge ran meanwhile). */
  filesLeftOut: Type.Array(Type.String({ maxLength: 1024 })),
  instance: Type.Array(Type.Object({ name: Ident, file: Name, bytes: Count, sha256: Sha256 })),
  hmac: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type Manifest = Static<typeof ManifestSchema>;
export type TableEntry = Static<typeof TableEntry>;
type UnsignedManifest = Omit<Manifest, 'hmac'>;

/** JSON with object keys sorted at every level: the bytes the HMAC covers, however the file was laid out. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const manifestKey = (secretKey: Buffer) => deriveKey(secretKey, 'backup-manifest');

/** A fingerprint of SECRET_KEY that reveals nothing of it: equal ids, same key. */
export function keyIdOf(secretKey: Buffer): string {
  return createHmac('sha256', manifestKey(secretKey)).update('key-id').digest('hex').slice(0, 16);
}

function macOf(secretKey: Buffer, manifest: UnsignedManifest): string {
  return createHmac('sha256', manifestKey(secretKey)).update(canonicalJson(manifest)).digest('hex');
}

export function signManifest(secretKey: Buffer, manifest: UnsignedManifest): Manifest {
  return { ...manifest, hmac: macOf(secretKey, manifest) };
}

/** Whether the manifest's HMAC is the one `secretKey` makes of its content. */
export function manifestIsAuthentic(secretKey: Buffer, manifest: Manifest): boolean {
  const { hmac, ...unsigned } = manifest;
  return timingSafeEqual(Buffer.from(hmac, 'hex'), Buffer.from(macOf(secretKey, unsigned), 'hex'));
}

export class ManifestError extends Error {}

/** The manifest in `text`, checked against the format; ManifestError says what is wrong. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ManifestError('manifest.json is not JSON');
  }
  const format = (value as { format?: unknown; formatVersion?: unknown } | null) ?? {};
  if (format.format !== FORMAT) throw new ManifestError('manifest.json is not a Signet backup');
  if (format.formatVersion !== FORMAT_VERSION)
    throw new ManifestError(
      `the backup's format version ${String(format.formatVersion)} is not one this Signet reads (${FORMAT_VERSION}): use a newer Signet`,
    );
  if (!Value.Check(ManifestSchema, value)) {
    const first = [...Value.Errors(ManifestSchema, value)][0];
    throw new ManifestError(
      `manifest.json does not match the format: ${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'}`,
    );
  }
  return value;
}
