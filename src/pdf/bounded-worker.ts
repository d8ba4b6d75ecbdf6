import { Worker } from 'node:worker_threads';

/**
 * A worker thread for work on untrusted files (PDF parsing and sealing), held to a heap size
 * (`resourceLimits`) and a deadline per task. Tasks run one at a time, in order; a task that
 * breaks a limit is rejected with `WorkerLimitError`, the thread is discarded, and the next task
 * gets a fresh one. The thread starts on first use and does not keep the process alive while idle.
 * At most `maxWaiting` tasks wait behind the one running: another is refused at once with
 * `WorkerBusyError` (503 `busy` with `Retry-After` to a client), never queued without bound.
 *
 * The module at `moduleUrl` runs on the thread; its export `exportName(task)` does the work.
 * Errors it throws cross the thread boundary as their `name` and `message` (see `rebuild`).
 */

/** A task ran past its deadline or out of the worker's memory. */
export class WorkerLimitError extends Error {
  override name = 'WorkerLimitError';
}

/** The queue was full: the task was not taken. `retryAfterSeconds` estimates when it would be. */
export class WorkerBusyError extends Error {
  override name = 'WorkerBusyError';
  constructor(readonly retryAfterSeconds: number) {
    super('the worker is busy; try again later');
  }
}

/** Seconds until `ahead` tasks of `averageMs` each are done: at least 1, at most a minute. */
export const retryAfterSeconds = (ahead: number, averageMs: number) =>
  Math.min(60, Math.max(1, Math.ceil((ahead * averageMs) / 1000)));

export interface BoundedWorkerOptions {
  moduleUrl: string;
  exportName: string;
  /** Milliseconds one task may take. */
  deadlineMs: number;
  resourceLimits: {
    maxOldGenerationSizeMb: number;
    maxYoungGenerationSizeMb?: number;
    stackSizeMb?: number;
  };
  /** Turns an error from the thread (name, message) back into the caller's error type. */
  rebuild?: (name: string, message: string) => Error | undefined;
  /** Tasks that may wait behind the running one; more are refused (`WorkerBusyError`). */
  maxWaiting: number;
  /**
   * The thread's nice value (Linux, where it is per thread): 19 lets every other thread of the
   * process have the CPU first. Ignored elsewhere, where it would lower the whole process.
   */
  niceness?: number;
}

type Response =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; name: string; message: string };

interface Task {
  id: number;
  task: unknown;
  transfer: ArrayBuffer[];
  resolve: (r: unknown) => void;
  reject: (e: Error) => void;
}

// This file runs as dist/pdf/bounded-worker.js when built and as TypeScript from src/ under the
// tests and tsx: the host beside it has the same extension.
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const HOST = new URL(FROM_SOURCES ? './worker-host.ts' : './worker-host.js', import.meta.url).href;

export class BoundedWorker<In, Out> {
  private worker: Worker | null = null;
  private queue: Task[] = [];
  private current: Task | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private startedAt = 0;
  /** Moving average of task durations, for `Retry-After` (a first guess until one has run). */
  private averageMs = 1000;

  constructor(private readonly options: BoundedWorkerOptions) {}

  run(task: In, transfer: ArrayBuffer[] = []): Promise<Out> {
    if (this.queue.length >= this.options.maxWaiting) {
      return Promise.reject(
        new WorkerBusyError(retryAfterSeconds(this.queue.length + 1, this.averageMs)),
      );
    }
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        task,
        transfer,
        resolve: resolve as (r: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** Stops the thread; the task running and those waiting are rejected. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    const waiting = [...(this.current ? [this.current] : []), ...this.queue];
    this.queue = [];
    this.finish();
    for (const t of waiting) t.reject(new Error('the worker was stopped'));
    if (w) await w.terminate();
  }

  private start(): Worker {
    // From the sources the thread registers tsx (a development dependency) before importing the
    // host: a worker thread does not inherit the loader that runs the TypeScript of its parent.
    const bootstrap = FROM_SOURCES
      ? `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(HOST)}); })`
      : `import(${JSON.stringify(HOST)})`;
    const w = new Worker(bootstrap, {
      eval: true,
      workerData: {
        module: this.options.moduleUrl,
        exportName: this.options.exportName,
        niceness: this.options.niceness,
      },
      resourceLimits: this.options.resourceLimits,
    });
    w.on('message', (msg: Response) => {
      const t = this.current;
      if (!t || t.id !== msg.id) return;
      this.finish();
      if (msg.ok) t.resolve(msg.result);
      else
        t.reject(
          this.options.rebuild?.(msg.name, msg.message) ??
            Object.assign(new Error(msg.message), { name: msg.name }),
        );
      this.pump();
    });
    const died = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = null;
      const t = this.current;
      this.finish();
      const outOfMemory = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      t?.reject(
        outOfMemory
          ? new WorkerLimitError(
              `the work needed more than ${this.options.resourceLimits.maxOldGenerationSizeMb} MB of memory`,
            )
          : err,
      );
      this.pump();
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`the worker thread exited with code ${code}`)));
    return w;
  }

  private finish(): void {
    if (this.current) {
      const ms = performance.now() - this.startedAt;
      this.averageMs = this.averageMs * 0.8 + ms * 0.2;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.current = null;
    if (this.queue.length === 0) this.worker?.unref();
  }

  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const t = this.queue.shift()!;
    this.current = t;
    this.startedAt = performance.now();
    this.worker ??= this.start();
    const w = this.worker;
    w.ref();
    this.timer = setTimeout(() => {
      if (this.current !== t) return;
      // The thread may be stuck in synchronous code: only terminating it stops the work.
      this.worker = null;
      this.finish();
      t.reject(new WorkerLimitError(`the work took longer than ${this.options.deadlineMs} ms`));
      void w.terminate().finally(() => this.pump());
    }, this.options.deadlineMs);
    w.postMessage({ id: t.id, task: t.task }, t.transfer);
  }
}
