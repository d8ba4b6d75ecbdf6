import os from 'node:os';
import type { Config } from '../config.ts';
import { createStorage } from '../storage/create-storage.ts';
import { BackupError, existingSecretKey } from './backup-common.ts';
import { createBackup } from './create-backup.ts';
import { LocationError, openLocation } from './location.ts';
import { ManifestError } from './manifest.ts';
import { progressFor } from './progress.ts';
import { restoreBackup } from './restore-backup.ts';
import { verifyBackup, type VerifyStatus } from './verify-backup.ts';

/** `signet backup verify` exits with these, so a script can tell what went wrong. */
const VERIFY_EXIT: Record<VerifyStatus, number> = {
  intact: 0,
  corrupted: 1,
  incomplete: 1,
  tampered: 3,
  other_key: 4,
  unauthenticated: 4,
};

interface BackupArgs {
  /** `backup`, `backup verify`, or `restore`. */
  command: 'backup' | 'verify' | 'restore';
  /** `--to` for a backup, `--from` for a restore, the positional argument for verify. */
  location: string | undefined;
  json: boolean;
}

/**
 * The backup process's CPU priority: the lowest (nice 19), so the API it shares a machine with
 * comes first (at nice 10 the API's p99 during a backup was 2.35-3.4 × its p99 alone; at 19,
 * 0.2-0.98 ×, the backup as fast: `npm run bench -- backup`).
 */
const BACKUP_NICENESS = 19;

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * The backup commands. They never migrate the source (the generic CLI path does): a backup
 * reads the database as it is, and a restore checks its target before it writes anything.
 * Returns the exit code; a refusal is printed as one sentence, without a stack trace.
 */
export async function runBackupCommand(config: Config, args: BackupArgs): Promise<number> {
  const print = (json: unknown, text: string) =>
    process.stdout.write(args.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  const flag = args.command === 'backup' ? '--to' : args.command === 'restore' ? '--from' : 'DIR';
  if (!args.location) {
    process.stderr.write(
      `signet: ${flag} is required (a directory, or s3://bucket/prefix with the S3_* variables)\n`,
    );
    return 2;
  }
  const secretKey = await existingSecretKey(config);
  const storage = createStorage(config);
  try {
    if (args.command === 'backup') {
      if (!secretKey)
        throw new BackupError(
          "SECRET_KEY is not set and DATA_DIR has no secret.key: is DATA_DIR the instance's?",
        );
      // Background work: on a machine the API shares, the API gets the processor first.
      try {
        os.setPriority(BACKUP_NICENESS);
      } catch {
        // Not allowed here (a container without the capability): run as is.
      }
      const started = Date.now();
      const summary = await createBackup({
        config,
        storage,
        secretKey,
        to: args.location,
        progress: progressFor(args.json),
      });
      const seconds = (Date.now() - started) / 1000;
      const leftOut = summary.filesLeftOut.length
        ? `\n${summary.filesLeftOut.length} file(s) deleted while the backup ran were left out (listed in manifest.json).`
        : '';
      print(
        { ...summary, seconds },
        `Backed up ${summary.rows} rows of ${summary.tables} tables and ${summary.files} files (${mb(summary.bytes)}) to ${summary.location} in ${seconds.toFixed(1)} s.${leftOut}\n` +
          'SECRET_KEY is not in the backup: keep it beside the backup, a restore needs it.',
      );
      return 0;
    }
    if (args.command === 'verify') {
      const location = openLocation(args.location, config.s3);
      try {
        const report = await verifyBackup(location, secretKey, progressFor(args.json));
        const { manifest, ...rest } = report;
        print(
          {
            ...rest,
            createdAt: manifest?.createdAt ?? null,
            tables: manifest?.tables.length ?? 0,
            rows: manifest?.tables.reduce((n, t) => n + t.rows, 0) ?? 0,
            files: manifest?.files.count ?? 0,
            filesLeftOut: manifest?.filesLeftOut ?? [],
          },
          [`${report.status}: ${report.message}`, ...report.problems.map((p) => `  ${p}`)].join(
            '\n',
          ),
        );
        return VERIFY_EXIT[report.status];
      } finally {
        location.close();
      }
    }
    const started = Date.now();
    const summary = await restoreBackup({
      config,
      storage,
      secretKey,
      from: args.location,
      progress: progressFor(args.json),
    });
    const seconds = (Date.now() - started) / 1000;
    print(
      { ...summary, seconds },
      `Restored ${summary.rows} rows of ${summary.tables} tables and ${summary.files} files from ${args.location} in ${seconds.toFixed(1)} s.\n` +
        'Start the server with the same SECRET_KEY (npx signet serve).',
    );
    return 0;
  } catch (err) {
    if (
      err instanceof BackupError ||
      err instanceof LocationError ||
      err instanceof ManifestError
    ) {
      if (args.json) print({ error: err.message }, '');
      else process.stderr.write(`signet: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    storage.destroy?.();
  }
}
