import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import { createDb, migrate, migrations } from '../db/create-db.ts';
import type { Storage } from '../storage/storage.ts';
import { BackupError, GENERATED_CERT, sqliteFile } from './backup-common.ts';
import type { Manifest } from './manifest.ts';
import {
  appliedMigrations,
  listTables,
  openPostgres,
  openSqlite,
  quote,
  type SqlConn,
} from './sql-conn.ts';

export type TargetConfig = Pick<
  Config,
  'databaseUrl' | 'dataDir' | 'storage' | 's3' | 'production' | 'secretKey'
>;

/** A read-write connection to the target database (after `prepareSchema` created it). */
export function openTarget(config: TargetConfig): Promise<SqlConn> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl)
    : Promise.resolve(openSqlite(sqliteFile(config.dataDir), { readonly: false }));
}

/**
 * Refuses, before anything is written, a target that holds data: a table with a row, a stored
 * file, or a generated certificate other than the backup's. A database migrated but empty is
 * fine, unless it was migrated past the backup (its schema could then not be the backup's).
 */
export async function checkTargetEmpty(
  config: TargetConfig,
  storage: Storage,
  manifest: Manifest,
  backupCert: Buffer | null,
): Promise<void> {
  const unknown = manifest.migrations.filter((m) => !(m in migrations));
  if (unknown.length > 0)
    throw new BackupError(
      `the backup was made by a newer Signet (its database has migrations this one does not know: ${unknown.slice(0, 3).join(', ')}); restore it with that version or a later one`,
    );
  const exists = config.databaseUrl || (await stat(sqliteFile(config.dataDir)).catch(() => null));
  if (exists) {
    const conn = config.databaseUrl
      ? await openPostgres(config.databaseUrl)
      : openSqlite(sqliteFile(config.dataDir), { readonly: true });
    try {
      for (const table of await listTables(conn)) {
        const rows = await conn.query(`select 1 as one from ${quote(table.name)} limit 1`);
        if (rows.length > 0)
          throw new BackupError(
            `the target database is not empty (table ${table.name} has rows): restore into a new, empty database that no server has started on`,
          );
      }
      const beyond = (await appliedMigrations(conn)).filter(
        (m) => !manifest.migrations.includes(m),
      );
      if (beyond.length > 0)
        throw new BackupError(
          `the target database was migrated past the backup (${beyond[0]}): restore into a new, empty database`,
        );
    } finally {
      await conn.close();
    }
  }
  for await (const object of storage.list()) {
    throw new BackupError(
      `the target storage is not empty (it holds ${object.key}): restore into empty storage`,
    );
  }
  const cert = await readFile(path.join(config.dataDir, GENERATED_CERT)).catch(() => null);
  if (cert && backupCert && !cert.equals(backupCert))
    throw new BackupError(
      `${path.join(config.dataDir, GENERATED_CERT)} exists and is not the backup's certificate: restore into a new DATA_DIR`,
    );
}

/** Migrates the target to exactly the backup's migrations (`only`), or to the latest. */
export async function migrateTarget(config: TargetConfig, only?: readonly string[]): Promise<void> {
  const handle = createDb({
    databaseUrl: config.databaseUrl,
    sqliteFile: sqliteFile(config.dataDir),
    poolSize: 1,
    namedStatements: false,
  });
  try {
    await migrate(handle.db, only ? new Set(only) : undefined);
  } finally {
    await handle.close();
  }
}
