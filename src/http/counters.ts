import type { Redis } from 'ioredis';
import { AppError } from './errors.ts';

/**
 * Fixed-window counters for the limits that are not "requests per route" (which
 * @fastify/rate-limit counts): failed authentications per IP (counted after the answer is
 * known), submissions and code mails per campaign and per address (counted once the body names
 * the address). The plugin counts a request as it arrives and offers no way to count a 401 after
 * the fact or to peek, hence this. With `REDIS_URL` every instance shares the counts (INCR with
 * an expiry); without, they live in this process. A Redis outage lets requests through, as the
 * plugin's `skipOnError` does.
 */

interface Hit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

const MAX_LOCAL_KEYS = 100_000;
const PREFIX = 'signet:counter:';

export class Counters {
  private readonly local = new Map<string, { count: number; until: number }>();

  constructor(private readonly redis?: Redis) {}

  /** Counts one hit on `key` in its `windowMs` window (or only reads the count when `peek`). */
  async hit(key: string, windowMs: number, options: { peek?: boolean } = {}): Promise<Hit> {
    if (this.redis && this.redis.status === 'ready') {
      try {
        const k = PREFIX + key;
        if (options.peek) {
          const [count, ttl] = await Promise.all([this.redis.get(k), this.redis.pttl(k)]);
          return { count: Number(count ?? 0), resetMs: Math.max(0, ttl) };
        }
        const [[, count], [, ttl]] = (await this.redis.multi().incr(k).pttl(k).exec()) as [
          [null, number],
          [null, number],
        ];
        if (ttl < 0) await this.redis.pexpire(k, windowMs);
        return { count, resetMs: ttl < 0 ? windowMs : ttl };
      } catch {
        return { count: 0, resetMs: 0 };
      }
    }
    const now = Date.now();
    let entry = this.local.get(key);
    if (!entry || entry.until <= now) {
      if (options.peek) return { count: 0, resetMs: 0 };
      if (this.local.size >= MAX_LOCAL_KEYS) this.prune(now);
      entry = { count: 0, until: now + windowMs };
      this.local.set(key, entry);
    }
    if (!options.peek) entry.count++;
    return { count: entry.count, resetMs: entry.until - now };
  }

  /**
   * Counts a hit and throws 429 `rate_limited` (with `Retry-After`) past `max` per `windowMs`;
   * `max` 0 turns the limit off. `what` completes "At most N … per …".
   */
  async take(key: string, max: number, windowMs: number, what: string): Promise<void> {
    if (max <= 0) return;
    const { count, resetMs } = await this.hit(key, windowMs);
    if (count > max) throw limited(`At most ${max} ${what}`, resetMs);
  }

  /**
   * Like `take` for several limits at once: a hit counts against all of them or none, so a request
   * one limit refuses does not use up another's budget (checked, then counted: a race may let a
   * few requests past a limit, never many).
   */
  async takeAll(
    limits: Array<{ key: string; max: number; what: string }>,
    windowMs: number,
  ): Promise<void> {
    const active = limits.filter((l) => l.max > 0);
    for (const l of active) {
      const { count, resetMs } = await this.hit(l.key, windowMs, { peek: true });
      if (count >= l.max) throw limited(`At most ${l.max} ${l.what}`, resetMs);
    }
    for (const l of active) await this.take(l.key, l.max, windowMs, l.what);
  }

  private prune(now: number): void {
    for (const [k, v] of this.local) if (v.until <= now) this.local.delete(k);
    // Still full of live keys (a flood of distinct ones): drop the oldest half rather than grow.
    if (this.local.size >= MAX_LOCAL_KEYS) {
      let n = 0;
      for (const k of this.local.keys()) {
        if (n++ > MAX_LOCAL_KEYS / 2) break;
        this.local.delete(k);
      }
    }
  }
}

/** 429 `rate_limited` with `Retry-After`. */
export function limited(message: string, resetMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(resetMs / 1000));
  return new AppError('rate_limited', `${message}; retry in ${seconds} s`, undefined, {
    'Retry-After': String(seconds),
  });
}

export const HOUR = 3_600_000;
