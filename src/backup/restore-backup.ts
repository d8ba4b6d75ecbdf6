import { randomBytes } from 'node:crypto';
import { link, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Storage } from '../storage/storage.ts';
import { BackupError, GENERATED_CERT, SECRET_KEY_FILE } from './backup-common.ts';
import { openLocation, type BackupLocation } from './location.ts';
import {
  ManifestError,
  keyIdOf,
  manifestIsAuthentic,
  type Manifest,
  type TableEntry,
} from './manifest.ts';
import { Meter } from './meter.ts';
import { silentProgress, type Progress } from './progress.ts';
import type { Encoded } from './row-codec.ts';
import { listTables, quote, type SqlConn, type TableInfo } from './sql-conn.ts';
import { loadOrder, TableLoader } from './table-io.ts';
import {
  checkTargetEmpty,
  migrateTarget,
  openTarget,
  type TargetConfig,
} from './restore-target.ts';
import { checkContents, indexEntries, readManifest } from './verify-backup.ts';

interface RestoreOptions {
  /** The target: its database, storage and DATA_DIR, as `signet serve` would use them. */
  config: TargetConfig;
  storage: Storage;
  /** SECRET_KEY of the target: must be the one the backup was made with. */
  secretKey: Buffer | null;
  /** A directory or `s3://bucket/prefix`. */
  from: string;
  fileConcurrency?: number;
  progress?: Progress;
}

interface RestoreSummary {
  tables: number;
  rows: number;
  files: number;
  migrated: number;
}

/**
 * Restores a backup into an empty database and storage, SQLite or PostgreSQL, local or S3,
 * whatever the source was. Everything is checked before anything is written (the key, the
 * manifest's HMAC, every file's hash, the target's emptiness); then the schema the backup was
 * taken with is built, the files are copied, the rows loaded in one transaction, the generated
 * certificate put in DATA_DIR, and the database migrated forward. A failure part-way removes
 * the files copied and rolls the rows back.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreSummary> {
  const { config, storage, progress = silentProgress } = options;
  const location = openLocation(options.from, config.s3);
  try {
    const manifest = await readManifest(location).catch((err: unknown) => {
      if (err instanceof ManifestError) throw new BackupError(err.message);
      throw err;
    });
    checkKey(options.secretKey, manifest);
    const problems = await checkContents(location, manifest, progress);
    if (problems.length > 0)
      throw new BackupError(
        `the backup does not match its manifest, nothing was restored: ${problems.slice(0, 5).join('; ')}`,
      );
    const cert = manifest.instance.find((f) => f.name === 'signing_certificate');
    const certBytes = cert ? await readAll(location, cert.file) : null;
    await checkTargetEmpty(config, storage, manifest, certBytes);

    await migrateTarget(config, manifest.migrations);
    const files = await copyFiles(
      location,
      manifest,
      storage,
      options.fileConcurrency ?? 4,
      progress,
    );
    let rows: number;
    try {
      rows = await loadTables(location, manifest, config, progress);
    } catch (err) {
      await removeFiles(location, manifest, storage);
      throw err;
    }
    if (certBytes) await placeFile(path.join(config.dataDir, GENERATED_CERT), certBytes);
    // Development keeps SECRET_KEY in DATA_DIR: the restored instance then starts as it is.
    if (!config.production && config.secretKey !== undefined)
      await placeFile(path.join(config.dataDir, SECRET_KEY_FILE), `${config.secretKey}\n`);
    const before = manifest.migrations.length;
    await migrateTarget(config);
    progress.stop();
    return { tables: manifest.tables.length, rows, files, migrated: before };
  } finally {
    progress.stop();
    location.close();
  }
}

function checkKey(secretKey: Buffer | null, manifest: Manifest): void {
  if (!secretKey)
    throw new BackupError(
      "SECRET_KEY is not set: set it to the SECRET_KEY of the instance the backup was made from (in development, that instance's DATA_DIR/secret.key)",
    );
  if (keyIdOf(secretKey) !== manifest.keyId)
    throw new BackupError(
      'the backup was made with another SECRET_KEY: set the SECRET_KEY kept with it (the restored secrets open only with that key); nothing was restored',
    );
  if (!manifestIsAuthentic(secretKey, manifest))
    throw new BackupError(
      "the backup's manifest was changed after it was made (its HMAC does not match): nothing was restored",
    );
}

async function readAll(location: BackupLocation, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await location.read(name)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes a file that must not exist yet (link() fails on an existing name); mode 0600. */
async function placeFile(file: string, content: Buffer | string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  if (await stat(file).catch(() => null)) return; // the same certificate (checked before), or a key file already there
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await link(tmp, file).finally(() => rm(tmp, { force: true }));
}

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  zip: 'application/zip',
  json: 'application/json',
};
const contentTypeOf = (key: string) =>
  CONTENT_TYPES[key.slice(key.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';

/** Copies the backup's files into storage, a few at a time, each hashed again on the way. */
async function copyFiles(
  location: BackupLocation,
  manifest: Manifest,
  storage: Storage,
  concurrency: number,
  progress: Progress,
): Promise<number> {
  progress.phase('files', manifest.files.count);
  let copied = 0;
  let failure: unknown = null;
  const inFlight = new Set<Promise<void>>();
  const copy = async (entry: { key: string; bytes: number; sha256: string }) => {
    const meter = new Meter();
    const body = (await location.read(`files/${entry.key}`)).pipe(meter);
    await storage.put(entry.key, body, contentTypeOf(entry.key));
    copied++;
    if (meter.digest() !== entry.sha256 || meter.bytes !== entry.bytes)
      throw new BackupError(`files/${entry.key} changed while it was restored`);
    progress.advance(1, entry.bytes);
  };
  try {
    for await (const entry of indexEntries(location, manifest)) {
      if (failure) break;
      const task: Promise<void> = copy(entry)
        .catch((err: unknown) => {
          failure ??= err;
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
  } catch (err) {
    await removeFiles(location, manifest, storage);
    throw err;
  }
  return copied;
}

/** Undoes a copy: the storage was empty before, so every file the index lists goes. */
async function removeFiles(
  location: BackupLocation,
  manifest: Manifest,
  storage: Storage,
): Promise<void> {
  for await (const entry of indexEntries(location, manifest))
    await storage.delete(entry.key).catch(() => undefined);
}

/**
 * Loads every table in one transaction, parents before children: a failure (a file that
 * changed since it was checked, a row the database refuses) rolls back every row.
 */
async function loadTables(
  location: BackupLocation,
  manifest: Manifest,
  config: TargetConfig,
  progress: Progress,
): Promise<number> {
  const conn = await openTarget(config);
  let rows = 0;
  try {
    const present = new Map((await listTables(conn)).map((t) => [t.name, t]));
    const wanted = manifest.tables.map((entry) => {
      const table = present.get(entry.name);
      if (!table) throw new BackupError(`table ${entry.name} of the backup does not exist here`);
      return table;
    });
    const { order, deferred } = loadOrder(wanted);
    const entries = new Map(manifest.tables.map((t) => [t.name, t]));
    progress.phase(
      'rows',
      manifest.tables.reduce((n, t) => n + t.rows, 0),
    );
    await conn.run(conn.dialect === 'sqlite' ? 'begin immediate' : 'begin');
    try {
      // Checked only at commit: rows of a table that references itself come in any order.
      if (conn.dialect === 'sqlite') await conn.run('pragma defer_foreign_keys = on');
      const loaders = new Map<string, { loader: TableLoader; entry: TableEntry }>();
      for (const table of order) {
        const entry = entries.get(table.name);
        if (!entry) continue;
        const loader = new TableLoader(conn, table, entry.columns, deferred.get(table.name));
        loaders.set(table.name, { loader, entry });
        // Rows a migration may have written are the backup's to give.
        await conn.run(`delete from ${quote(table.name)}`);
        rows += await eachRow(location, entry, async (row) => {
          await loader.add(row);
          progress.advance(1);
        });
        await loader.flush();
      }
      for (const name of deferred.keys()) {
        const loaded = loaders.get(name);
        if (loaded) await eachRow(location, loaded.entry, (row) => loaded.loader.setDeferred(row));
      }
      if (conn.dialect === 'postgres') await resetSequences(conn, order);
      await conn.run('commit');
    } catch (err) {
      await conn.run('rollback').catch(() => undefined);
      throw err;
    }
  } finally {
    await conn.close();
  }
  return rows;
}

/** Streams a table file row by row, then checks it is still the file the manifest describes. */
async function eachRow(
  location: BackupLocation,
  entry: TableEntry,
  handle: (row: Encoded[]) => Promise<void>,
): Promise<number> {
  const meter = new Meter();
  const lines = createInterface({
    input: (await location.read(entry.file)).pipe(meter),
    crlfDelay: Infinity,
  });
  let n = 0;
  for await (const line of lines) {
    await handle(JSON.parse(line) as Encoded[]);
    n++;
  }
  if (n !== entry.rows || meter.digest() !== entry.sha256)
    throw new BackupError(`${entry.file} changed while it was restored; nothing was restored`);
  return n;
}

/** PostgreSQL sequences (serial and identity columns) set past the rows restored. */
async function resetSequences(conn: SqlConn, tables: readonly TableInfo[]): Promise<void> {
  for (const table of tables) {
    for (const column of table.columns) {
      const [row] = await conn.query('select pg_get_serial_sequence($1, $2) as seq', [
        quote(table.name),
        column.name,
      ]);
      if (!row?.seq) continue;
      await conn.query(
        `select setval($1, coalesce((select max(${quote(column.name)}) from ${quote(table.name)}), 0) + 1, false)`,
        [row.seq],
      );
    }
  }
}
