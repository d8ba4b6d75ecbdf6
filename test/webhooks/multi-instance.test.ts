import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { emitEvent } from '../../src/modules/events/emit.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';
import {
  api,
  attemptedDeliveries,
  childEnv,
  cli,
  serve,
  type ChildServer,
} from '../helpers/child-server.ts';
import { startReceiver, waitFor, type Receiver } from './support.ts';
import { documentEventData } from '../helpers/event-data.ts';

/*
 * Two server processes on one PostgreSQL database share the delivery queue: every delivery is
 * claimed by one of them (FOR UPDATE SKIP LOCKED), so none is attempted twice at the same time.
 * SQLite is a single-file, single-writer database: this scenario is PostgreSQL's.
 */

const EVENTS = 500;
if (!testDatabaseUrl)
  console.info(
    'multi-instance webhook delivery: skipped, it needs PostgreSQL (set TEST_DATABASE_URL)',
  );

describe.skipIf(!testDatabaseUrl)('two server processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  const servers: ChildServer[] = [];
  afterAll(async () => {
    for (const s of servers) s.process.kill('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  it(`deliver ${EVENTS} events, each exactly once, never the same delivery twice at a time`, async () => {
    db = await createTestDatabase();
    // A little latency keeps many attempts in flight in both processes.
    receiver = await startReceiver(() => ({
      status: 200,
      delayMs: 5 + Math.floor(Math.random() * 20),
    }));
    // Debug logs name each delivery a process attempted.
    const env = childEnv({
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.url,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'debug',
    });
    // The servers boot while the CLI issues the organization and key (each a process start).
    const [a, b, { org, key }] = await Promise.all([
      serve(env),
      serve(env),
      (async () => {
        const org = await cli(env, [
          'org',
          'create',
          '--name',
          'Twins',
          '--admin-email',
          'ops@twins.test',
        ]);
        const { key } = await cli(env, [
          'key',
          'create',
          '--org',
          org.id,
          '--scopes',
          'webhooks.create',
        ]);
        return { org, key: key as string };
      })(),
    ]);
    servers.push(a, b);
    const hook = await api(servers[0], key, 'POST', '/api/v1/webhooks', {
      url: receiver.url,
      events: ['document.completed'],
    });
    expect(hook.status).toBe(201);

    // The events land in one commit, as a burst the two workers then compete for.
    await db.handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < EVENTS; i++)
        await emitEvent(
          trx,
          systemClock,
          org.id,
          'document.completed',
          documentEventData(`doc_${i}`, `Doc ${i}`),
        );
    });

    await waitFor(() => receiver.received.length >= EVENTS, `${EVENTS} deliveries`, 30_000, 50);
    await waitFor(async () => {
      const pending = await db.handle.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '<>', 'succeeded')
        .execute();
      return pending.length === 0;
    }, 'every delivery to be recorded');
    expect(receiver.received).toHaveLength(EVENTS);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery-id'])).size).toBe(
      EVENTS,
    );
    expect(receiver.maxConcurrentPerDelivery).toBe(1);
    const attempts = await db.handle.db.selectFrom('webhook_attempts').select('id').execute();
    expect(attempts).toHaveLength(EVENTS);

    // Both processes took part, and no delivery was attempted by both.
    const attemptedBy = () => servers.map(attemptedDeliveries);
    // Log lines reach this process through pipes, a little after the database commits.
    await waitFor(
      () => attemptedBy().reduce((n, ids) => n + ids.size, 0) >= EVENTS,
      'the attempt logs',
    );
    const [first, second] = attemptedBy();
    expect(first.size).toBeGreaterThan(0);
    expect(second.size).toBeGreaterThan(0);
    expect(first.size + second.size).toBe(EVENTS);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
  });
});
