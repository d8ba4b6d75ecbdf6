import { BoundedWorker, type BoundedWorkerOptions } from './bounded-worker.ts';

/**
 * The PDF worker threads of one app (intake page count, text search, verification, sealing,
 * timestamp renewal), each started on first use. buildApp makes one and closes it with the app,
 * so two apps in one process share no thread and closing one leaves the other's running.
 */
export class PdfWorkers {
  private readonly pools = new Map<
    string,
    { variant: string; worker: BoundedWorker<never, unknown> }
  >();

  /**
   * The pool named `name`, started with `options` on first use. A call with another `variant`
   * (sealing with another deadline) replaces the pool: the old thread is stopped.
   */
  pool<In, Out>(name: string, options: BoundedWorkerOptions, variant = ''): BoundedWorker<In, Out> {
    const held = this.pools.get(name);
    if (held?.variant === variant) return held.worker as BoundedWorker<In, Out>;
    if (held) void held.worker.close();
    const worker = new BoundedWorker<In, Out>(options);
    this.pools.set(name, { variant, worker: worker as BoundedWorker<never, unknown> });
    return worker;
  }

  /** How many pools are started (none after close). */
  get started(): number {
    return this.pools.size;
  }

  /** Stops every thread; tasks still running or waiting are rejected. */
  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.worker.close()));
  }
}
