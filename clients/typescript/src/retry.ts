/**
 * The fetch the client sends through: one `Idempotency-Key` per POST call (kept on its retries,
 * so a retry after a lost response replays the first answer instead of doing the work twice),
 * and bounded retries of what may succeed a moment later.
 */

export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (0 turns retrying off). */
  retries: number;
  /** A wait longer than this (a `Retry-After` far ahead) is not waited for: the response is returned. */
  maxDelayMs: number;
  /** First backoff step; doubled on each retry, with jitter, when the server gives no `Retry-After`. */
  baseDelayMs: number;
}

/** At most this many retries, whatever the caller asks. */
export const MAX_RETRIES = 10;

/** Statuses that mean "not done, try again": rate limited, or a proxy/gateway without an answer. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * fetch rejects (a TypeError in every runtime) when no response arrived: connection refused or
 * reset, DNS failure, a response cut off. An abort or timeout the caller asked for is not retried.
 */
function isNetworkError(err: unknown, request: Request): boolean {
  return err instanceof TypeError && !request.signal.aborted;
}

/** A 409 `idempotency_in_progress`: the first attempt is still running on the server; its answer will be replayed. */
async function inProgress(res: Response): Promise<boolean> {
  if (res.status !== 409) return false;
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } };
    return body?.error?.code === 'idempotency_in_progress';
  } catch {
    return false;
  }
}

export function retryingFetch(inner: FetchLike, options: RetryOptions): FetchLike {
  const retries = Math.max(0, Math.min(MAX_RETRIES, Math.floor(options.retries)));
  const backoff = (attempt: number) =>
    Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2));

  return async (request) => {
    const headers = new Headers(request.headers);
    // One key per logical call: made here once, before the first attempt, and sent on every retry.
    if (request.method === 'POST' && !headers.has('idempotency-key'))
      headers.set('Idempotency-Key', crypto.randomUUID());
    // The body is read once so each attempt can send it again (a Request body is a one-time stream).
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const attemptRequest = () =>
      new Request(request.url, {
        method: request.method,
        headers,
        body,
        signal: request.signal,
        redirect: request.redirect,
      });

    for (let attempt = 0; ; attempt++) {
      const current = attemptRequest();
      let res: Response;
      try {
        res = await inner(current);
      } catch (err) {
        if (attempt >= retries || !isNetworkError(err, current)) throw err;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (attempt >= retries || !(RETRY_STATUSES.has(res.status) || (await inProgress(res))))
        return res;
      const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff(attempt);
      if (wait > options.maxDelayMs) return res;
      await res.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
