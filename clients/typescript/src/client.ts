import createClient, { type Client } from 'openapi-fetch';
import { retryingFetch, type FetchLike } from './retry.js';
import type { paths } from './schema.js';

/** The typed client: `GET`, `POST`, `PATCH`, `PUT`, `DELETE` on Signet's paths, each answering `{ data, error, response }`. */
export type SignetClient = Client<paths>;

export interface SignetClientOptions {
  /** Where Signet answers, e.g. `http://localhost:3000` (without `/api/v1`). */
  baseUrl: string;
  /** An API key (`sk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The fetch to send with (default: the runtime's `fetch`); every attempt goes through it. */
  fetch?: FetchLike;
  /**
   * Retries after a network error, 429, 502, 503 or 504 (and a 409 `idempotency_in_progress`),
   * default 2, at most 10; 0 turns retrying off. Each POST carries one `Idempotency-Key` for all
   * its attempts (yours if you pass one in `headers`), so a retried create is done once.
   */
  retries?: number;
  /** Longest wait before a retry (default 30 s): a `Retry-After` further ahead returns the response instead. */
  maxRetryDelayMs?: number;
  /** First backoff step when the server sends no `Retry-After` (default 500 ms, doubled each retry, with jitter). */
  retryDelayMs?: number;
}

/**
 * A typed Signet client. Every call resolves (it does not throw on 4xx/5xx): check `error`,
 * typed as Signet's `{ error: { code, message, details } }` body.
 *
 * ```ts
 * const signet = createSignetClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.SIGNET_KEY! });
 * const { data, error } = await signet.POST('/api/v1/documents', { body: { name: 'Consulting agreement' } });
 * ```
 */
export function createSignetClient(options: SignetClientOptions): SignetClient {
  if (!options.baseUrl) throw new TypeError('createSignetClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createSignetClient: apiKey is required');
  const inner: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(inner, {
      retries: options.retries ?? 2,
      maxDelayMs: options.maxRetryDelayMs ?? 30_000,
      baseDelayMs: options.retryDelayMs ?? 500,
    }),
  });
}
