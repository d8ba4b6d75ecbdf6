import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { StorageNotFound, type Storage } from '../storage/storage.ts';
import { openLocation, type BackupLocation } from './location.ts';
import {
  FILES_INDEX,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  keyIdOf,
  signManifest,
  type Manifest,
  type TableEntry,
} from './manifest.ts';
import { writeStreamed } from './meter.ts';
import { silentProgress, type Progress } from './progress.ts';
import { encodeValue } from './row-codec.ts';
import {
  appliedMigrations,
  listTables,
  openPostgres,
  openSqlite,
  type SqlConn,
} from './sql-conn.ts';
import { readPages } from './table-io.ts';
import { BackupError, SIGNET_VERSION, GENERATED_CERT, sqliteFile } from './backup-common.ts';

type BackupConfig = Pick<Config, 'databaseUrl' | 'dataDir' | 'storage' | 's3' | 'signingCertP12'>;

interface BackupOptions {
  config: BackupConfig;
  /** The instance's file storage (the server's driver). */
  storage: Storage;
  /** SECRET_KEY: keys the manifest's HMAC; never written anywhere. */
  secretKey: Buffer;
  /** A directory or `s3://bucket/prefix`; must be empty. */
  to: string;
  /** Rows per keyset page. */
  pageRows?: number;
  /** Stored files copied at once. */
  fileConcurrency?: number;
  progress?: Progress;
  now?: () => Date;
}

interface BackupSummary {
  location: string;
  tables: number;
  rows: number;
  files: number;
  bytes: number;
  filesLeftOut: string[];
}

/**
 * A consistent backup of the instance while it runs: the database from one snapshot (SQLite: a
 * read transaction on a connection of its own; PostgreSQL: one REPEATABLE READ transaction),
 * table by table in keyset pages, then every stored file, then the generated signing certificate,
 * then the manifest (last: a backup without one is incomplete and `verify` says so).
 */
export async function createBackup(options: BackupOptions): Promise<BackupSummary> {
  const { config, storage, progress = silentProgress } = options;
  // Inside the stored files, the backup would copy itself as it grows.
  if (
    config.storage.driver === 'local' &&
    !options.to.startsWith('s3://') &&
    `${path.resolve(options.to)}${path.sep}`.startsWith(
      `${path.resolve(config.storage.root)}${path.sep}`,
    )
  )
    throw new BackupError(
      `${options.to} is inside the stored files (${config.storage.root}): choose another directory`,
    );
  const location = openLocation(options.to, config.s3);
  try {
    if (!(await location.isEmpty()))
      throw new BackupError(
        `${location.label} is not empty: a backup goes to a new directory or prefix`,
      );
    const createdAt = (options.now?.() ?? new Date()).toISOString();
    const conn = await openSnapshot(config);
    let migrations: string[];
    const tables: TableEntry[] = [];
    try {
      migrations = await appliedMigrations(conn);
      const infos = await listTables(conn);
      const counts = progress === silentProgress ? null : await countRows(conn, infos);
      progress.phase('tables', counts ?? undefined);
      for (const table of infos) {
        const file = `tables/${table.name}.jsonl`;
        const types = table.columns.map((c) => c.type);
        let rows = 0;
        const written = await writeStreamed(location, file, async (write) => {
          for await (const page of readPages(conn, table, options.pageRows ?? 1000)) {
            let text = '';
            for (const row of page)
              text += `${JSON.stringify(row.map((v, i) => encodeValue(types[i], v)))}\n`;
            await write(text);
            rows += page.length;
            progress.advance(page.length, text.length);
          }
        });
        tables.push({
          name: table.name,
          file,
          columns: table.columns.map((c) => ({ name: c.name, type: c.type })),
          primaryKey: table.primaryKey,
          rows,
          ...written,
        });
      }
    } finally {
      // The snapshot ends as soon as the tables are read: files need no transaction.
      await conn.run('rollback').catch(() => undefined);
      await conn.close();
    }
    progress.phase('files');
    const files = await copyFiles(storage, location, options.fileConcurrency ?? 4, progress);
    const instance = await copyInstanceFiles(config, location);
    progress.stop();
    const manifest: Manifest = signManifest(options.secretKey, {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt,
      signetVersion: SIGNET_VERSION,
      source: {
        database: config.databaseUrl ? 'postgres' : 'sqlite',
        storage: config.storage.driver,
      },
      migrations,
      keyId: keyIdOf(options.secretKey),
      tables,
      files: {
        index: FILES_INDEX,
        count: files.count,
        bytes: files.bytes,
        indexBytes: files.index.bytes,
        indexSha256: files.index.sha256,
      },
      filesLeftOut: files.leftOut,
      instance,
    });
    await writeStreamed(location, MANIFEST, (write) =>
      write(`${JSON.stringify(manifest, null, 2)}\n`),
    );
    return {
      location: location.label,
      tables: tables.length,
      rows: tables.reduce((n, t) => n + t.rows, 0),
      files: files.count,
      bytes: tables.reduce((n, t) => n + t.bytes, 0) + files.bytes,
      filesLeftOut: files.leftOut,
    };
  } finally {
    progress.stop();
    location.close();
  }
}

async function openSnapshot(config: BackupConfig): Promise<SqlConn> {
  if (config.databaseUrl) {
    const conn = await openPostgres(config.databaseUrl);
    await conn.run('begin isolation level repeatable read read only');
    return conn;
  }
  const file = sqliteFile(config.dataDir);
  if (!(await stat(file).catch(() => null)))
    throw new BackupError(`there is no database at ${file}: is DATA_DIR the instance's?`);
  const conn = openSqlite(file, { readonly: true });
  await conn.run('begin');
  // The snapshot starts with the transaction's first read.
  await conn.query('select count(*) as n from sqlite_master');
  return conn;
}

async function countRows(conn: SqlConn, tables: { name: string }[]): Promise<number> {
  let total = 0;
  for (const t of tables)
    total += Number((await conn.query(`select count(*) as n from "${t.name}"`))[0]?.n ?? 0);
  return total;
}

/**
 * Copies every stored file, a few at a time, and writes the index of what was copied. A file
 * listed but gone when it is read (deleted while the backup ran) is left out and named.
 */
async function copyFiles(
  storage: Storage,
  location: BackupLocation,
  concurrency: number,
  progress: Progress,
) {
  let count = 0;
  let bytes = 0;
  const leftOut: string[] = [];
  const index = await writeStreamed(location, FILES_INDEX, async (writeIndex) => {
    const inFlight = new Set<Promise<void>>();
    let failure: unknown = null;
    const copy = async (key: string) => {
      let body: Readable;
      try {
        body = await storage.get(key);
      } catch (err) {
        if (err instanceof StorageNotFound) {
          leftOut.push(key);
          return;
        }
        throw err;
      }
      const written = await writeStreamed(location, `files/${key}`, async (write) => {
        for await (const chunk of body) await write(chunk as Buffer);
      });
      count++;
      bytes += written.bytes;
      progress.advance(1, written.bytes);
      await writeIndex(`${JSON.stringify({ key, ...written })}\n`);
    };
    for await (const { key } of storage.list()) {
      if (failure) break;
      const task: Promise<void> = copy(key)
        .catch((err: unknown) => {
          failure ??= err;
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
  });
  return { count, bytes, leftOut, index };
}

/** The generated signing certificate (encrypted with a password derived from SECRET_KEY, as stored). */
async function copyInstanceFiles(config: BackupConfig, location: BackupLocation) {
  // A configured SIGNING_CERT_P12 is the operator's own file, kept like SECRET_KEY: not copied.
  if (config.signingCertP12) return [];
  const source = path.join(config.dataDir, GENERATED_CERT);
  if (!(await stat(source).catch(() => null))) return [];
  const file = `instance/${GENERATED_CERT}`;
  const written = await writeStreamed(location, file, async (write) => {
    for await (const chunk of createReadStream(source)) await write(chunk as Buffer);
  });
  return [{ name: 'signing_certificate', file, ...written }];
}
