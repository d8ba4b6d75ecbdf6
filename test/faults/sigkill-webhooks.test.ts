import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { emitEvent } from '../../src/modules/events/emit.ts';
import {
  api,
  childEnv,
  cli,
  freePort,
  serve,
  terminate,
  type ChildServer,
} from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sleep, waitFor } from '../webhooks/support.ts';
import { documentEventData } from '../helpers/event-data.ts';

/*
 * SIGKILL with 200 webhook deliveries queued and the receiver down (first refusing connections,
 * then answering 503); restart; the receiver comes back: every event arrives at least once, none
 * is lost. A down receiver costs one probe per retry step, not 200 failing requests each counted
 * toward deactivation: the webhook stays active and nothing queued is dropped.
 */

const EVENTS = 200;
let db: TestDatabase;
let receiver: http.Server | null = null;
const servers: ChildServer[] = [];
afterAll(async () => {
  for (const s of servers)
    if (s.process.exitCode === null && s.process.signalCode === null)
      await terminate(s).catch(() => s.process.kill('SIGKILL'));
  receiver?.closeAllConnections();
  await new Promise((r) => (receiver ? receiver.close(r) : r(null)));
  await db?.drop();
});

interface Arrival {
  deliveryId: string;
  docId: string;
  status: number;
}

describe('SIGKILL with 200 deliveries queued and the receiver down', () => {
  it('after a restart every event arrives at least once; the webhook stays active', {
    timeout: 180_000,
  }, async () => {
    db = await createTestDatabase({ migrated: false });
    const port = await freePort();
    const arrivals: Arrival[] = [];
    let answer = 503;
    // Nothing listens on `port` yet: connections are refused.
    const listen = async () => {
      receiver = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          arrivals.push({
            deliveryId: String(req.headers['x-service-delivery-id']),
            docId: body.data.id,
            status: answer,
          });
          res
            .writeHead(answer, { 'content-type': 'text/plain' })
            .end(answer === 200 ? 'ok' : 'down for maintenance');
        });
      });
      await new Promise<void>((resolve) => receiver!.listen(port, '127.0.0.1', resolve));
    };

    const env = childEnv({
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.url,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_TIMEOUT_MS: '2000',
      // Steps of at least 500 ms: the few seconds the receiver is down cost a handful of probes.
      WEBHOOK_RETRY_SCHEDULE: '500ms,1s,1s,1s,1s,1s,1s,1s',
    });
    const [first, { org, key }] = await Promise.all([
      serve(env),
      (async () => {
        const org = await cli(env, [
          'org',
          'create',
          '--name',
          'Outage',
          '--admin-email',
          'ops@outage.test',
        ]);
        const { key } = await cli(env, [
          'key',
          'create',
          '--org',
          org.id,
          '--scopes',
          'webhooks.create,webhooks.read',
        ]);
        return { org, key: key as string };
      })(),
    ]);
    servers.push(first);
    const hook = await api(first, key, 'POST', '/api/v1/webhooks', {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['document.completed'],
    });
    expect(hook.status).toBe(201);
    const webhookId = hook.body.data.id as string;
    const docIds = Array.from(
      { length: EVENTS },
      (_, i) => `doc_outage_${String(i).padStart(3, '0')}`,
    );
    await db.handle.db.transaction().execute(async (trx) => {
      for (const id of docIds)
        await emitEvent(trx, systemClock, org.id, 'document.completed', documentEventData(id));
    });

    const attempts = async () =>
      Number(
        (
          await db.handle.db
            .selectFrom('webhook_attempts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Refused connections: the webhook starts failing.
    await waitFor(async () => (await attempts()) >= 1, 'a refused attempt', 30_000, 50);
    // Then it answers 503 ("down for maintenance") for a while: a few probes see it.
    await sleep(1500);
    await listen();
    await waitFor(() => arrivals.length >= 2, 'probes answered 503', 30_000, 50);

    const before = await api(first, key, 'GET', `/api/v1/webhooks/${webhookId}`);
    expect(before.body.data.status).toBe('active');
    expect(before.body.data.failureCount).toBeGreaterThan(0);
    expect(before.body.data.failureCount).toBeLessThan(20);
    // One probe at a time once the webhook was seen failing: the 503s came one by one, for a
    // handful of deliveries, not for the whole queue.
    expect(new Set(arrivals.map((a) => a.deliveryId)).size).toBe(arrivals.length);
    const attemptsBeforeKill = await attempts();
    expect(attemptsBeforeKill).toBeLessThan(EVENTS / 2);

    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    // Nothing was dropped: every delivery is still pending.
    const queued = await db.handle.db.selectFrom('webhook_deliveries').select('status').execute();
    expect(queued).toHaveLength(EVENTS);
    expect(queued.every((d) => d.status === 'pending')).toBe(true);

    // Restart while the receiver is still down; it comes back a little later.
    const second = await serve(env);
    servers.push(second);
    await waitFor(() => arrivals.length >= 3, 'a probe from the restarted server', 30_000, 50);
    answer = 200;
    const delivered = () => new Set(arrivals.filter((a) => a.status === 200).map((a) => a.docId));
    await waitFor(() => delivered().size === EVENTS, `all ${EVENTS} events`, 90_000, 100);
    expect([...delivered()].sort()).toEqual(docIds);

    const rows = await waitFor(
      async () => {
        const all = await db.handle.db
          .selectFrom('webhook_deliveries')
          .select(['id', 'status'])
          .execute();
        return all.every((r) => r.status === 'succeeded') ? all : null;
      },
      'every delivery recorded as succeeded',
      30_000,
    );
    expect(rows).toHaveLength(EVENTS);
    const after = await api(second, key, 'GET', `/api/v1/webhooks/${webhookId}`);
    expect(after.body.data).toMatchObject({ status: 'active', failureCount: 0 });
    expect((await terminate(second)).code).toBe(0);
  });
});
