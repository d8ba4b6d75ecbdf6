import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/*
 * The thread side of `BoundedWorker`: imports the task module named in `workerData` and answers
 * each message with the result of its export, one at a time (the caller sends one at a time).
 */

const { module, exportName, niceness } = workerData as {
  module: string;
  exportName: string;
  niceness?: number;
};
// On Linux a nice value belongs to a thread: this lowers this thread only, before any work (the
// thread is never reused at a higher priority; a new one starts from its parent's).
if (niceness !== undefined && process.platform === 'linux') os.setPriority(niceness);
const handler = ((await import(module)) as Record<string, (task: unknown) => Promise<unknown>>)[
  exportName
];

parentPort!.on('message', async ({ id, task }: { id: number; task: unknown }) => {
  try {
    parentPort!.postMessage({ id, ok: true, result: await handler(task) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort!.postMessage({ id, ok: false, name: e.name, message: e.message });
  }
});
