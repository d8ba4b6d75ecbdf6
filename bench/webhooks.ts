/**
 * `node --import tsx bench/webhooks.ts` (`npm run bench:webhooks`): 10,000 events fanned out to
 * two receivers on 127.0.0.1, i.e. 20,000 signed deliveries, by the worker of one `signet serve`
 * process on SQLite. Prints deliveries per second, and the latency of `GET /api/v1/documents`
 * while the worker drains next to the same load with an idle worker. Figures only, no verdict.
 * BENCH_WEBHOOK_EVENTS changes the number of events.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { systemClock } from '../src/clock.ts';
import { emitEvent } from '../src/modules/events/emit.ts';
import { openBenchDatabase, startSignet } from './harness.ts';
import { seedDocuments } from './seed.ts';
import { documentEventData } from '../test/helpers/event-data.ts';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const BATCH = 500;
const LOAD = { connections: 10 };

interface Receiver {
  url: string;
  requests: number;
  ids: Set<string>;
  close(): Promise<void>;
}

/** Answers 204 at once and counts what it receives (the deliveries, not their verification, are measured). */
async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', requests: 0, ids: new Set(), close: async () => {} };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.requests++;
      receiver.ids.add(String(req.headers['x-service-delivery-id']));
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** Loads GET /api/v1/documents until `durationSec` passes or `stop()` is called. */
function loadDocuments(url: string, auth: Record<string, string>, durationSec: number) {
  let stop = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: `${url}/api/v1/documents`, headers: auth, ...LOAD, duration: durationSec },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    stop = () => instance.stop();
  });
  return { stop: () => stop(), done };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

export interface WebhookFigures {
  events: number;
  deliveries: number;
  deliveriesPerSec: number;
  drainSeconds: number;
  repeatedRequests: number;
  /** GET /api/v1/documents under load, with an idle worker and while the worker drains. */
  idleP99Ms: number;
  drainingP99Ms: number;
  drainingP50Ms: number;
}

/** The fan-out of the file header; `log` receives the human-readable lines. */
export async function measureWebhooks(
  log: (line: string) => void = () => {},
): Promise<WebhookFigures> {
  const db = await openBenchDatabase('sqlite');
  const receivers = [await startReceiver(), await startReceiver()];
  let server: Awaited<ReturnType<typeof startSignet>> | null = null;
  try {
    const seeded = await seedDocuments(db, 1000);
    server = await startSignet({
      ...db.env,
      NODE_ENV: 'development',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    const auth = { authorization: `Bearer ${seeded.key}` };
    for (const r of receivers) {
      const res = await fetch(`${server.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ url: r.url, events: ['document.completed'] }),
      });
      if (res.status !== 201)
        throw new Error(`registering a webhook: ${res.status} ${await res.text()}`);
    }

    log(
      `Webhook delivery benchmark: ${EVENTS} events x 2 webhooks on SQLite; ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
    );
    const idle = await loadDocuments(server.url, auth, 5).done;

    const busy = loadDocuments(server.url, auth, 3600);
    const started = performance.now();
    const data = documentEventData(seeded.detailId, 'Bench document');
    for (let i = 0; i < EVENTS; i += BATCH) {
      await db.handle.db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(EVENTS, i + BATCH); j++)
          await emitEvent(trx, systemClock, seeded.orgId, 'document.completed', data);
      });
    }
    const emittedAfter = performance.now() - started;
    const deadline = Date.now() + 10 * 60_000;
    while (receivers.some((r) => r.ids.size < EVENTS)) {
      if (Date.now() > deadline)
        throw new Error(
          `not drained after 10 minutes: ${receivers.map((r) => r.ids.size).join(' + ')} deliveries`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    const drainedAfter = performance.now() - started;
    busy.stop();
    const during = await busy.done;

    const outcome = await db.handle.db
      .selectFrom('webhook_deliveries')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const deliveries = 2 * EVENTS;
    const requests = receivers.reduce((n, r) => n + r.requests, 0);
    log(
      `  events committed in            ${(emittedAfter / 1000).toFixed(2)} s (batches of ${BATCH}, from the benchmark process)`,
    );
    log(`  ${deliveries} deliveries received in ${(drainedAfter / 1000).toFixed(2)} s`);
    log(`  deliveries/s                   ${Math.round(deliveries / (drainedAfter / 1000))}`);
    log(`  requests received              ${requests} (${requests - deliveries} repeated)`);
    log(
      `  delivery rows by status        ${outcome.map((o) => `${o.status}: ${o.n}`).join(', ')} (recording may trail the receipt)`,
    );
    log(`  GET /api/v1/documents, ${LOAD.connections} connections:`);
    log(
      `    idle worker:   ${Math.round(idle.requests.average)} req/s, p50 ${ms(idle.latency.p50)}, p99 ${ms(idle.latency.p99)}`,
    );
    log(
      `    while draining: ${Math.round(during.requests.average)} req/s, p50 ${ms(during.latency.p50)}, p99 ${ms(during.latency.p99)}`,
    );
    log(
      '  (one shared machine: the server, both receivers, the event writer and the load generator compete for the same cores)',
    );
    return {
      events: EVENTS,
      deliveries,
      deliveriesPerSec: Math.round(deliveries / (drainedAfter / 1000)),
      drainSeconds: Number((drainedAfter / 1000).toFixed(2)),
      repeatedRequests: requests - deliveries,
      idleP99Ms: idle.latency.p99,
      drainingP50Ms: during.latency.p50,
      drainingP99Ms: during.latency.p99,
    };
  } finally {
    await server?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await db.handle.close();
    await db.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await measureWebhooks(console.log);
