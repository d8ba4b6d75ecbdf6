import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { emitEvent } from '../../src/modules/events/emit.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { api, childEnv, cli, serve, type ChildServer } from '../helpers/child-server.ts';
import { startReceiver, waitFor, type Receiver } from './support.ts';
import { documentEventData } from '../helpers/event-data.ts';

/*
 * The real server as a child process, killed with SIGKILL while deliveries are queued and in
 * flight: after a restart every event still arrives (at least once), none is lost.
 */

const EVENTS = 200;
let db: TestDatabase;
let receiver: Receiver;
const servers: ChildServer[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) s.process.kill('SIGKILL');
  await receiver?.close();
  await db.drop();
});

describe('SIGKILL during delivery', () => {
  it(`delivers all ${EVENTS} events after a restart`, { timeout: 120_000 }, async () => {
    // Phase 1: the receiver takes requests and never answers, so at the kill a batch of deliveries is on the wire
    // (leased by the dying process) and the rest are queued.
    let down = true;
    receiver = await startReceiver(() => (down ? 'hang' : { status: 200 }));
    const env = childEnv({
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.url,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms',
    });
    // The server boots while the CLI issues the organization and key (each a process start).
    const [first, { org, key }] = await Promise.all([
      serve(env),
      (async () => {
        const org = await cli(env, [
          'org',
          'create',
          '--name',
          'Crash Test',
          '--admin-email',
          'ops@crash.test',
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
      url: receiver.url,
      events: ['document.completed'],
    });
    expect(hook.status).toBe(201);
    // The events commit at once (as a burst of document completions would), so none waits on the API.
    const docIds = Array.from(
      { length: EVENTS },
      (_, i) => `doc_crash_${String(i).padStart(3, '0')}`,
    );
    await db.handle.db.transaction().execute(async (trx) => {
      for (const id of docIds)
        await emitEvent(trx, systemClock, org.id, 'document.completed', documentEventData(id));
    });
    await waitFor(() => receiver.received.length >= 20, 'deliveries to be on the wire', 20_000);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const onTheWire = new Set(receiver.received.map((r) => r.headers['x-service-delivery-id']));
    expect(onTheWire.size).toBeLessThan(EVENTS);

    // Phase 2: restart with the receiver up. Queued deliveries go at once; those leased by the dead process when their lease expires.
    down = false;
    const answeredFrom = receiver.received.length;
    const second = await serve(env);
    servers.push(second);
    const delivered = () =>
      new Set(
        receiver.received.slice(answeredFrom).map((r) => JSON.parse(r.body).data.id as string),
      );
    await waitFor(() => delivered().size === EVENTS, `all ${EVENTS} events`, 60_000, 100);
    expect([...delivered()].sort()).toEqual(docIds);

    const rows = await waitFor(async () => {
      const all = await db.handle.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status'])
        .execute();
      return all.length === EVENTS && all.every((r) => r.status === 'succeeded') ? all : null;
    }, 'every delivery to be recorded as succeeded');
    const deliveryIds = new Set(receiver.received.map((r) => r.headers['x-service-delivery-id']));
    expect(deliveryIds).toEqual(new Set(rows.map((r) => r.id)));
    // Every delivery that was on the wire at the kill came again, with the same id: at least once.
    for (const id of onTheWire)
      expect(
        receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id).length,
      ).toBeGreaterThanOrEqual(2);
    expect(receiver.maxConcurrentPerDelivery).toBe(1);
    const hookNow = await api(second, key, 'GET', `/api/v1/webhooks/${hook.body.data.id}`);
    expect(hookNow.body.data).toMatchObject({ status: 'active', failureCount: 0 });

    // SIGTERM drains and exits cleanly.
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
