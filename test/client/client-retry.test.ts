import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignetClient, retryAfterMs } from '../../clients/typescript/src/index.ts';
import { startFlakyProxy, startLiveSignet, type FlakyProxy, type LiveSignet } from './support.ts';

/*
 * Retries of the TypeScript client against a real Signet on 127.0.0.1: a response lost after the
 * server did the work is replayed on the retry (one Idempotency-Key per call), never done twice;
 * only network errors, 429 and 502-504 are retried, a bounded number of times, after Retry-After.
 */
let live: LiveSignet;
const proxies: FlakyProxy[] = [];

beforeAll(async () => {
  live = await startLiveSignet();
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await live?.close();
});

/** Documents of the organization with exactly this name. */
async function documentsNamed(name: string): Promise<string[]> {
  const res = await live.t.request(
    'GET',
    `/api/v1/documents?search=${encodeURIComponent(name)}&limit=100`,
  );
  return res.body.data
    .filter((d: { name: string }) => d.name === name)
    .map((d: { id: string }) => d.id);
}

async function proxy(decide: Parameters<typeof startFlakyProxy>[1]): Promise<FlakyProxy> {
  const p = await startFlakyProxy(live.url, decide);
  proxies.push(p);
  return p;
}

describe('a POST whose response is lost is retried with the same Idempotency-Key and replayed, not done twice', () => {
  it('through the fetch option: the first real request goes through, then its answer is dropped', async () => {
    const sent: { key: string | null; status: number | null }[] = [];
    let firstId = '';
    const signet = createSignetClient({
      baseUrl: live.url,
      apiKey: live.t.key,
      retryDelayMs: 10,
      fetch: async (request) => {
        const res = await fetch(request);
        sent.push({ key: request.headers.get('idempotency-key'), status: res.status });
        if (sent.length === 1) {
          firstId = (await res.json()).data.id;
          throw new TypeError('fetch failed'); // the answer never reached the caller
        }
        return res;
      },
    });

    const { data, error, response } = await signet.POST('/api/v1/documents', {
      body: { name: 'Lost answer (fetch)' },
    });
    expect(error).toBeUndefined();
    expect(sent).toHaveLength(2);
    expect(sent[0].status).toBe(201);
    expect(sent[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1].key).toBe(sent[0].key);
    expect(await documentsNamed('Lost answer (fetch)')).toEqual([firstId]);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(data!.data.id).toBe(firstId);
  });

  it('on the wire: a proxy lets the request run on the server and cuts the connection before the answer', async () => {
    const p = await proxy((i) => (i === 0 ? 'drop-response' : 'forward'));
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retryDelayMs: 10 });

    const { data, error, response } = await signet.POST('/api/v1/documents', {
      body: { name: 'Lost answer (socket)' },
    });
    expect(error).toBeUndefined();
    expect(p.attempts.map((a) => [a.method, a.status])).toEqual([
      ['POST', 201],
      ['POST', 201],
    ]);
    expect(await documentsNamed('Lost answer (socket)')).toEqual([data!.data.id]);
    expect(p.attempts[1].headers['idempotency-key']).toBe(p.attempts[0].headers['idempotency-key']);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
  });

  it('each call has its own key: two calls with the same body make two documents', async () => {
    const p = await proxy(() => 'forward');
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key });
    await signet.POST('/api/v1/documents', { body: { name: 'Twice on purpose' } });
    await signet.POST('/api/v1/documents', { body: { name: 'Twice on purpose' } });
    expect(p.attempts[0].headers['idempotency-key']).not.toBe(
      p.attempts[1].headers['idempotency-key'],
    );
    expect(await documentsNamed('Twice on purpose')).toHaveLength(2);
  });

  it('a key the caller passes is used as is, and GETs carry none', async () => {
    const p = await proxy(() => 'forward');
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key });
    await signet.POST('/api/v1/documents', {
      body: { name: 'My own key' },
      headers: { 'Idempotency-Key': 'order-4711' },
    });
    const again = await signet.POST('/api/v1/documents', {
      body: { name: 'My own key' },
      headers: { 'Idempotency-Key': 'order-4711' },
    });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    await signet.GET('/api/v1/documents', {});
    expect(p.attempts.map((a) => a.headers['idempotency-key'])).toEqual([
      'order-4711',
      'order-4711',
      undefined,
    ]);
    expect(await documentsNamed('My own key')).toHaveLength(1);
  });
});

describe('what is retried, how often, and when', () => {
  it('a 503 with Retry-After: 1 is retried after at least that second, and the real answer returned', async () => {
    const p = await proxy((i) =>
      i === 0 ? { status: 503, headers: { 'retry-after': '1' } } : 'forward',
    );
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retryDelayMs: 10 });
    const { data, error } = await signet.POST('/api/v1/documents', {
      body: { name: 'After a 503' },
    });
    expect(error).toBeUndefined();
    expect(p.attempts.map((a) => a.status)).toEqual([503, 201]);
    expect(p.attempts[1].at - p.attempts[0].at).toBeGreaterThanOrEqual(950);
    expect(await documentsNamed('After a 503')).toEqual([data!.data.id]);
  });

  it('429, 502, 503 and 504 are retried up to `retries` times, then the last answer is returned as a typed error', async () => {
    const statuses = [429, 502, 504, 503];
    const p = await proxy((i) => ({
      status: statuses[i % 4],
      headers: { 'retry-after': '0' },
      body: '{"error":{"code":"rate_limited","message":"Slow down"}}',
    }));
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retries: 3 });
    const { data, error, response } = await signet.GET('/api/v1/documents', {});
    expect(data).toBeUndefined();
    expect(p.attempts).toHaveLength(4);
    expect(response.status).toBe(503);
    expect(error!.error.code).toBe('rate_limited');
  });

  it('other statuses (500, 400, 409) are not retried', async () => {
    for (const status of [500, 400, 409]) {
      const p = await proxy(() => ({ status }));
      const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retryDelayMs: 10 });
      const res = await signet.POST('/api/v1/documents', { body: { name: `Status ${status}` } });
      expect(res.response.status).toBe(status);
      expect(p.attempts).toHaveLength(1);
    }
  });

  it('a 409 idempotency_in_progress (the first attempt still running on the server) is retried; the answer then comes through', async () => {
    const busy =
      '{"error":{"code":"idempotency_in_progress","message":"A request with this Idempotency-Key is still being processed"}}';
    const p = await proxy((i) => (i === 0 ? { status: 409, body: busy } : 'forward'));
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retryDelayMs: 10 });
    const { data, error } = await signet.POST('/api/v1/documents', {
      body: { name: 'After in progress' },
    });
    expect(error).toBeUndefined();
    expect(p.attempts.map((a) => a.status)).toEqual([409, 201]);
    expect(p.attempts[1].headers['idempotency-key']).toBe(p.attempts[0].headers['idempotency-key']);
    expect(await documentsNamed('After in progress')).toEqual([data!.data.id]);
  });

  it('a call the caller aborts is not retried', async () => {
    const p = await proxy(() => ({ status: 503, headers: { 'retry-after': '1' } }));
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retries: 5 });
    const controller = new AbortController();
    const call = signet.GET('/api/v1/documents', { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(call).rejects.toThrow(/abort/i);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(p.attempts).toHaveLength(1);
  });

  it('a Retry-After longer than maxRetryDelayMs is not waited for: the 429 is returned at once', async () => {
    const p = await proxy(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    const signet = createSignetClient({
      baseUrl: p.url,
      apiKey: live.t.key,
      maxRetryDelayMs: 5_000,
    });
    const res = await signet.GET('/api/v1/documents', {});
    expect(res.response.status).toBe(429);
    expect(p.attempts).toHaveLength(1);
  });

  it('retries: 0 turns retrying off; a network error then reaches the caller', async () => {
    const p = await proxy(() => 'drop-response');
    const signet = createSignetClient({ baseUrl: p.url, apiKey: live.t.key, retries: 0 });
    await expect(signet.POST('/api/v1/documents', { body: { name: 'No retry' } })).rejects.toThrow(
      TypeError,
    );
    expect(p.attempts).toHaveLength(1);
    // The server did the work; only the answer was lost.
    expect(await documentsNamed('No retry')).toHaveLength(1);
  });

  it('a server that never answers is tried 1 + retries times, then the network error is thrown', async () => {
    const p = await proxy(() => 'drop-response');
    const signet = createSignetClient({
      baseUrl: p.url,
      apiKey: live.t.key,
      retries: 2,
      retryDelayMs: 10,
    });
    await expect(signet.GET('/api/v1/documents', {})).rejects.toThrow(TypeError);
    expect(p.attempts).toHaveLength(3);
  });

  it('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-21T09:30:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Sat, 21 Nov 2026 09:30:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sat, 21 Nov 2026 09:29:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});
