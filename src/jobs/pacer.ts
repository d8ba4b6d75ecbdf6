/**
 * A token bucket: `perSecond` tokens a second, at most a quarter second's worth saved up, so work
 * it paces goes out at a steady rate rather than in bursts. Written here rather than taken from a
 * rate-limit library because it paces claims of a queue (how many to take now), not requests.
 */
export class Pacer {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, perSecond / 4);
    this.tokens = this.capacity;
    this.last = this.now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
  }

  /** Takes up to `max` whole tokens; returns how many. */
  take(max: number): number {
    this.refill();
    const n = Math.min(max, Math.floor(this.tokens));
    this.tokens -= n;
    return n;
  }

  /** Gives back tokens taken but not used. */
  giveBack(n: number): void {
    this.tokens = Math.min(this.capacity, this.tokens + n);
  }

  /** Milliseconds until the next whole token. */
  waitMs(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}
