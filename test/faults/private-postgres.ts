import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * A PostgreSQL server of the test's own (initdb in a temporary directory, another port), so a
 * test may stop and restart it without touching the shared server other tests use. initdb and
 * postgres refuse to run as root: as root, they run as the `postgres` system user.
 */

const BIN = '/usr/lib/postgresql/15/bin';

export function privatePostgresMissing(): string | null {
  if (!existsSync(path.join(BIN, 'initdb')) || !existsSync(path.join(BIN, 'pg_ctl')))
    return `no PostgreSQL server binaries in ${BIN}`;
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0)
    return 'running as root without a postgres user to run the server as';
  return null;
}

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private static run(args: string[]): void {
    const asRoot = process.getuid?.() === 0;
    const [cmd, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', ...args]]
      : [args[0], args.slice(1)];
    execFileSync(cmd, argv, { stdio: 'pipe', timeout: 60_000 });
  }

  static async start(port: number): Promise<PrivatePostgres> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'signet-pg-'));
    if (process.getuid?.() === 0) {
      const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
      const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
      chownSync(dir, Number(ids), Number(gid));
    }
    PrivatePostgres.run([
      path.join(BIN, 'initdb'),
      '-D',
      path.join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    const pg = new PrivatePostgres(dir, port);
    pg.startServer();
    return pg;
  }

  /** `pg_ctl start` and wait until it accepts connections. */
  startServer(): void {
    PrivatePostgres.run([
      path.join(BIN, 'pg_ctl'),
      '-D',
      path.join(this.dir, 'data'),
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  }

  /** `pg_ctl stop -m fast`: every connection is closed, as a restart or failover does. */
  stopServer(): void {
    PrivatePostgres.run([
      path.join(BIN, 'pg_ctl'),
      '-D',
      path.join(this.dir, 'data'),
      '-m',
      'fast',
      '-w',
      'stop',
    ]);
  }

  async destroy(): Promise<void> {
    try {
      this.stopServer();
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
