import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own. By default SQLite checkpoints inside the COMMIT that
 * takes the WAL past 1,000 pages: on the event loop, copying pages into the database file and
 * syncing it while every request waits. Here the server's connection never checkpoints
 * (`wal_autocheckpoint = 0`); a worker thread with its own connection runs a PASSIVE checkpoint
 * every `intervalMs`, which copies what it can without blocking readers or the writer. Once a
 * checkpoint has caught up, the next write starts the WAL over from its beginning, so the file
 * stays small. If the worker fails, the connection goes back to checkpointing itself, and the
 * process says so (a warning on stderr: the database is created before the server's logger).
 *
 * The worker is a few lines of JavaScript, not a module of its own: it needs better-sqlite3 and
 * nothing of Signet, so it starts without the TypeScript loader.
 */
export interface Checkpointer {
  /** Stops the worker after a last checkpoint; its connection closes. */
  stop(): Promise<void>;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => checkpoint.get(), workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  checkpoint.get();
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, setAutocheckpoint: (pages: number) => void, intervalMs = 200): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, intervalMs } });
  // An idle worker must not keep the process alive (the CLI, tests); the server has its socket.
  worker.unref();
  setAutocheckpoint(0);
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping) setAutocheckpoint(DEFAULT_AUTOCHECKPOINT);
      resolve();
    });
  });
  worker.once('error', (err) => {
    process.emitWarning(`SQLite checkpoints on a worker thread stopped (${err.message}); the server's connection checkpoints itself again`, {
      code: CHECKPOINTER_FAILED,
    });
  });
  return {
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}

/** The code of the warning emitted when the worker fails. */
export const CHECKPOINTER_FAILED = 'SIGNET_CHECKPOINTER_FAILED';

/** SQLite's own default: checkpoint in the COMMIT that takes the WAL past this many pages. */
export const DEFAULT_AUTOCHECKPOINT = 1000;
