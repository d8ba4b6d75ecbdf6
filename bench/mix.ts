import autocannon from 'autocannon';
import { percentile } from './harness.ts';
import { SEARCH_WORDS, type Seeded } from './seed.ts';

/** Shares of each request class in a mix, summing to 1. */
export interface Mix {
  detail: number;
  list: number;
  create: number;
}
export type RequestClass = keyof Mix;
const CLASSES: RequestClass[] = ['detail', 'list', 'create'];

export const READ_MIX: Mix = { detail: 0.7, list: 0.2, create: 0.1 };

/** One server under load, and what it answers (Signet, the naive one, the bare one). */
export interface Side {
  name: string;
  url: string;
}

export interface ClassFigures {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

export interface MixResult {
  reqPerSec: number;
  non2xx: number;
  errors: number;
  /** Per class, from the moment every connection was answered once (round() says why). */
  classes: Partial<Record<RequestClass, ClassFigures & { perSec: number }>>;
  /**
   * The first request of each connection, every class: it also waits for the server to accept
   * the connection. Each round opens its connections anew, where a client with keep-alive opens
   * one once, so these are kept apart from the classes' percentiles and from req/s.
   */
  newConnections: ClassFigures;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];
const LIST_STATUSES = ['draft', 'pending', 'completed', 'cancelled'] as const;

/** A list page's random filters, as read-mix asks for them: a status, a search word, both or none. */
export function listFilters() {
  const f = Math.random();
  const both = f >= 0.5 && f < 0.6;
  return {
    status: f < 0.25 || both ? pick(LIST_STATUSES) : undefined,
    search: (f >= 0.25 && f < 0.5) || both ? pick(SEARCH_WORDS) : undefined,
    limit: pick([10, 25, 50]),
  };
}

/**
 * Each request: a random organization (its key), then by the mix's shares a random one of its
 * documents (detail), a first list page with random filters (none, a status, a search word, both;
 * a limit of 10, 25 or 50), or a create (a name and a signer).
 */
function setupRequest(seeded: Seeded, mix: Mix) {
  let created = 0;
  return (req: autocannon.Request, context: { kind?: RequestClass }): autocannon.Request => {
    const org = pick(seeded.orgs);
    const headers = { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' };
    const r = Math.random();
    if (r < mix.detail) {
      context.kind = 'detail';
      return {
        ...req,
        method: 'GET' as const,
        path: `/api/v1/documents/${pick(org.documents)}`,
        headers,
        body: undefined,
      };
    }
    if (r < mix.detail + mix.list) {
      context.kind = 'list';
      const { status, search, limit } = listFilters();
      const q = new URLSearchParams({ limit: String(limit) });
      if (status) q.set('status', status);
      if (search) q.set('search', search);
      return {
        ...req,
        method: 'GET' as const,
        path: `/api/v1/documents?${q}`,
        headers,
        body: undefined,
      };
    }
    context.kind = 'create';
    created++;
    const body = JSON.stringify({
      name: `Mix agreement ${created}`,
      signers: [{ name: 'Ann Signer', email: `ann${created}@example.test` }],
    });
    return { ...req, method: 'POST' as const, path: '/api/v1/documents', headers, body };
  };
}

/** Connections that each send requests of one mix; a load runs one or more streams at once. */
export interface Stream {
  mix: Mix;
  connections: number;
}

/** create-under-load's streams: 45 connections reading (details and lists) while 5 create. */
export const CREATE_UNDER_LOAD: Stream[] = [
  { mix: { detail: 0.8, list: 0.2, create: 0 }, connections: 45 },
  { mix: { detail: 0, list: 0, create: 1 }, connections: 5 },
];

type Tracker = ReturnType<typeof autocannon> & {
  on(
    event: 'response',
    listener: (
      client: { requestIterator?: { context?: { kind?: RequestClass } }; reqsMade?: number },
      status: number,
      bytes: number,
      ms: number,
    ) => void,
  ): unknown;
};

/** What a round measured: autocannon's results, and the requests answered in its steady part. */
interface RoundResult {
  results: autocannon.Result[];
  /** From the moment every connection had its first answer to the end of the round. */
  steadyMs: number;
  steadyRequests: number;
}

/**
 * One round of `seconds` on one side, its streams at once. Each round opens its connections anew
 * (autocannon's), and under load a first request also waits for the server to accept its
 * connection: hundreds of milliseconds at times (Signet and the anchor alike), a large part of
 * a two-second round for the 5 creating connections. So a round is measured from the moment
 * every connection had its first answer: latencies per class and requests counted from then on,
 * the first requests' latencies kept apart ('first'), as a client with keep-alive pays that wait
 * once per connection, not every two seconds.
 */
async function round(
  side: Side,
  seeded: Seeded,
  streams: Stream[],
  seconds: number,
  record?: Record<RequestClass | 'first', number[]>,
): Promise<RoundResult> {
  const connections = streams.reduce((n, s) => n + s.connections, 0);
  let answered = 0;
  let steadyFrom: number | undefined;
  let steadyRequests = 0;
  const results = await Promise.all(
    streams.map((stream) => {
      const instance = autocannon({
        url: side.url,
        connections: stream.connections,
        duration: seconds,
        requests: [{ setupRequest: setupRequest(seeded, stream.mix) }],
      }) as Tracker;
      instance.on('response', (client, _status, _bytes, ms) => {
        const kind = client.requestIterator?.context?.kind;
        // autocannon counts a request as made once written: 1 while the first is answered.
        if (client.reqsMade === 1) {
          record?.first.push(ms);
          if (++answered === connections) steadyFrom = performance.now();
        } else if (steadyFrom !== undefined) {
          steadyRequests++;
          if (kind) record?.[kind].push(ms);
        }
      });
      return instance as unknown as Promise<autocannon.Result>;
    }),
  );
  const steadyMs = steadyFrom === undefined ? 0 : performance.now() - steadyFrom;
  return { results, steadyMs, steadyRequests };
}

/**
 * Loads every side with the mix in turns: an unmeasured warm-up of each, then `rounds` rounds of
 * `durationSec / rounds` seconds on each side in order, so whatever else the machine does lands
 * on every side alike. The bare server gets the same requests (it answers any with its fixed body).
 */
export async function loadMixInTurns(
  sides: Side[],
  seeded: Seeded,
  streams: Stream[],
  options: { durationSec?: number; rounds?: number } = {},
): Promise<MixResult[]> {
  const warmup = Number(process.env.BENCH_WARMUP ?? 3);
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 5);
  const each = (options.durationSec ?? Number(process.env.BENCH_DURATION ?? 10)) / rounds;
  const records = sides.map(
    () =>
      ({ detail: [], list: [], create: [], first: [] }) as Record<RequestClass | 'first', number[]>,
  );
  const results: RoundResult[][] = sides.map(() => []);
  for (const side of sides) await round(side, seeded, streams, warmup);
  for (let i = 0; i < rounds; i++) {
    // Each round starts at another side, so no side always follows the same one.
    for (let j = 0; j < sides.length; j++) {
      const k = (i + j) % sides.length;
      results[k].push(await round(sides[k], seeded, streams, each, records[k]));
    }
  }
  return sides.map((_side, k) => {
    const seconds = results[k].reduce((n, r) => n + r.steadyMs, 0) / 1000;
    if (seconds === 0) throw new Error(`${sides[k].name}: no round had every connection answered`);
    const all = results[k].flatMap((r) => r.results);
    const classes: MixResult['classes'] = {};
    for (const c of CLASSES) {
      const times = records[k][c];
      if (times.length === 0) continue;
      classes[c] = { ...figuresOf(times), perSec: Math.round(times.length / seconds) };
    }
    return {
      newConnections: figuresOf(records[k].first),
      reqPerSec: results[k].reduce((n, r) => n + r.steadyRequests, 0) / seconds,
      non2xx: all.reduce((n, r) => n + r.non2xx, 0),
      errors: all.reduce((n, r) => n + r.errors, 0),
      classes,
    };
  });
}
const round2 = (n: number) => Number(n.toFixed(2));
const figuresOf = (times: number[]): ClassFigures => ({
  count: times.length,
  p50Ms: round2(percentile(times, 50)),
  p99Ms: round2(percentile(times, 99)),
});
