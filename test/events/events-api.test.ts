import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import { purgeEventLog } from '../../src/modules/events/event-retention.ts';
import { startReceiver, waitFor, type Receiver } from '../webhooks/support.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '50ms',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.app.deliveries.stop();
  await receiver.close();
  await t.close();
});

const list = (query: string, key?: string) => t.request('GET', `/api/v1/events${query}`, { key });

describe('GET /api/v1/events', () => {
  it('lists the events of the organization in the envelope a webhook receives (same data)', async () => {
    const org = await t.newOrg('Envelope Co');
    const hook = await t.request('POST', '/api/v1/webhooks', {
      key: org.key,
      body: { url: receiver.url, events: ['document.created'] },
    });
    expect(hook.status).toBe(201);
    const docId = await createDocument(t, { name: 'Envelope check' }, org.key);
    t.app.deliveries.start();
    const delivered = await waitFor(
      () => receiver.received.find((r) => r.body.includes(docId)),
      'the delivery',
    );
    const wire = JSON.parse(delivered.body);

    const res = await list('', org.key);
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ count: 1, hasMore: false, nextCursor: null });
    const [event] = res.body.data;
    expect(event).toEqual({ ...wire, id: expect.stringMatching(/^evt_/) });
    expect(wire.id).toMatch(/^dlv_/);
    expect(event.data.id).toBe(docId);
  });

  it('pages with a cursor, filters by type and createdAfter, and replays oldest first', async () => {
    const org = await t.newOrg('Pager Co');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await createDocument(t, { name: `Doc ${i}` }, org.key));
      t.clock.advance(1000);
    }
    const cutoff = (await list('?order=asc&limit=100', org.key)).body.data[1].created_at;
    await t.request('DELETE', `/api/v1/documents/${ids[0]}`, { key: org.key });

    const first = await list('?limit=2', org.key);
    expect(first.body.data.map((e: { event: string }) => e.event)).toEqual([
      'document.deleted',
      'document.created',
    ]);
    expect(first.body.meta.hasMore).toBe(true);
    const second = await list(`?limit=2&cursor=${first.body.meta.nextCursor}`, org.key);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.data[0].data.id).toBe(ids[3]);

    const created = await list('?type=document.created&order=asc', org.key);
    expect(created.body.data.map((e: { data: { id: string } }) => e.data.id)).toEqual(ids);
    const after = await list(
      `?createdAfter=${encodeURIComponent(cutoff)}&order=asc&type=document.created`,
      org.key,
    );
    expect(after.body.data.map((e: { data: { id: string } }) => e.data.id)).toEqual(ids.slice(2));
    // A cursor of one order is not a cursor of the other.
    expect(
      (await list(`?order=asc&cursor=${first.body.meta.nextCursor}`, org.key)).body.error.code,
    ).toBe('invalid_cursor');
  });

  it("refuses unknown filters and values, needs webhooks.read, and shows only the caller's events", async () => {
    for (const q of [
      '?type=document.frobnicated',
      '?createdAfter=yesterday',
      '?order=up',
      '?since=2026-01-01T00:00:00Z',
      '?limit=0',
    ]) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await list('?createdAfter=2026-01-01T00:00:00')).body.error.message).toMatch(
      /date-time/,
    );
    const key = await t.keyWith(['documents.read']);
    expect((await list('', key)).status).toBe(403);
    const mine = await t.newOrg('Mine Co');
    await createDocument(t, { name: 'Only mine' }, mine.key);
    const other = await t.newOrg('Other Co');
    expect((await list('', other.key)).body.data).toEqual([]);
  });
});

describe('event log retention (WEBHOOK_LOG_DAYS)', () => {
  it('forgets events and finished deliveries older than the limit, keeps newer ones and any still pending', async () => {
    const org = await t.newOrg('Retention Co');
    const old = await createDocument(t, { name: 'Old' }, org.key);
    t.clock.advance(31 * 24 * 3600 * 1000);
    const recent = await createDocument(t, { name: 'Recent' }, org.key);
    // A still-pending delivery of an old event keeps it.
    const db = t.database.handle.db;
    const oldEvent = await db
      .selectFrom('events')
      .select(['id', 'created_at'])
      .where('org_id', '=', org.orgId)
      .orderBy('created_at')
      .executeTakeFirstOrThrow();
    const stamp = oldEvent.created_at;
    const hookRow = {
      id: 'whk_retention',
      org_id: org.orgId,
      url: 'https://example.test/',
      events: '[]',
      status: 'active',
      description: null,
      secret: 'x',
      failure_count: 0,
      created_at: stamp,
      updated_at: stamp,
    };
    await db
      .insertInto('webhooks')
      .values(hookRow as never)
      .execute();
    const delivery = {
      org_id: org.orgId,
      webhook_id: 'whk_retention',
      event_id: oldEvent.id,
      event_type: 'document.created',
      attempt_count: 1,
      next_attempt_at: null,
      leased_until: null,
      last_status_code: 200,
      created_at: stamp,
      updated_at: stamp,
    };
    await db
      .insertInto('webhook_deliveries')
      .values({ ...delivery, id: 'dlv_done', status: 'succeeded' })
      .execute();
    await db
      .insertInto('webhook_attempts')
      .values({
        id: 'wat_1',
        delivery_id: 'dlv_done',
        attempted_at: stamp,
        status_code: 200,
        duration_ms: 3,
        error: null,
        response_body: null,
      })
      .execute();

    const idsOf = async () =>
      (await list('?limit=100', org.key)).body.data.map((e: { data: { id: string } }) => e.data.id);
    expect(await idsOf()).toEqual([recent, old]);
    await db
      .insertInto('webhook_deliveries')
      .values({ ...delivery, id: 'dlv_pending', status: 'pending' })
      .execute();
    await purgeEventLog(db, t.clock.now(), 30);
    expect(await idsOf()).toEqual([recent, old]); // pending: kept
    expect(
      await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', 'whk_retention')
        .execute(),
    ).toEqual([{ id: 'dlv_pending' }]);
    expect(
      await db
        .selectFrom('webhook_attempts')
        .select('id')
        .where('delivery_id', '=', 'dlv_done')
        .execute(),
    ).toEqual([]);

    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('id', '=', 'dlv_pending')
      .execute();
    expect(await purgeEventLog(db, t.clock.now(), 30)).toBeGreaterThanOrEqual(1);
    expect(await idsOf()).toEqual([recent]);
    expect(await purgeEventLog(db, t.clock.now(), 60)).toBe(0);
  });
});
