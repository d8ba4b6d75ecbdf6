import { busy } from '../../http/errors.ts';
import { retryAfterSeconds } from '../../pdf/bounded-worker.ts';

/**
 * The checks of one kind (public, or with a key) in progress in this instance, from the moment
 * the request arrives until its report is out: receiving a 50 MB body and verifying it on the
 * thread both count. Past `limit` a request is refused at once, before its body is read, with
 * 503 `busy` and a `Retry-After` estimated from recent checks: the work waiting is bounded by a
 * queue, not only a rate. Public and keyed checks have a queue and a thread each (verify-worker.ts),
 * so a customer's check never waits behind strangers'.
 */
export class VerifyQueue {
  private inFlight = 0;
  /** Moving average of a check's time, for `Retry-After` (a first guess until one has run). */
  private averageMs = 2000;

  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {}

  /** Takes a place, or throws 503 `busy`; the returned function gives it back. */
  enter(): () => void {
    if (this.inFlight >= this.limit)
      throw busy(
        `${this.limit} ${this.what} are already in progress`,
        retryAfterSeconds(this.inFlight, this.averageMs),
      );
    this.inFlight++;
    const started = performance.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight--;
      this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2;
    };
  }
}
