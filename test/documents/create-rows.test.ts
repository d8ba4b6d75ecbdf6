import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field, signer } from '../helpers/factories.ts';

/*
 * What one create writes, whichever way the dialect writes it (a transaction on SQLite, one
 * statement on PostgreSQL): the document, its signers and fields, its audit entry, its event and
 * one pending delivery per active webhook subscribed to document.created; all of it or nothing.
 */

let t: TestApp;
let orgId: string;
let key: string;
const now = '2026-01-01T00:00:00.000Z';

async function addWebhook(id: string, events: string, status = 'active') {
  await t.database.handle.db
    .insertInto('webhooks')
    .values({ id, org_id: orgId, url: 'https://hooks.example.test/in', events, status, description: null, secret: 's', failure_count: 0, created_at: now, updated_at: now })
    .execute();
}

beforeAll(async () => {
  t = await buildTestApp();
  ({ orgId, key } = await t.newOrg('Rows'));
  await addWebhook('whk_subscribed', JSON.stringify(['document.sent', 'document.created']));
  await addWebhook('whk_other', JSON.stringify(['document.sent']));
  await addWebhook('whk_inactive', JSON.stringify(['document.created']), 'inactive');
  await addWebhook('whk_also', JSON.stringify(['document.created']));
});
afterAll(async () => t.close());

describe('POST /api/v1/documents writes', () => {
  it('the document, signers, fields, audit entry, event and the subscribed deliveries', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      key,
      body: { name: 'Rows', signers: [signer(1), signer(2)], fields: [field({ assignedTo: 0 }), field({ assignedTo: 1 }), field({ assignedTo: 0, x: 50 })] },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    const detail = (await t.request('GET', `/api/v1/documents/${id}`, { key })).body.data;
    expect(detail.signers).toHaveLength(2);
    expect(detail.fields).toHaveLength(3);
    const audit = await t.database.handle.db.selectFrom('audit_logs').select(['action', 'org_id']).where('document_id', '=', id).execute();
    expect(audit).toEqual([{ action: 'document.created', org_id: orgId }]);
    const events = await t.database.handle.db.selectFrom('events').selectAll().where('org_id', '=', orgId).where('type', '=', 'document.created').execute();
    const event = events.find((e) => JSON.parse(e.data).id === id)!;
    expect(JSON.parse(event.data)).toMatchObject({ id, name: 'Rows', status: 'draft', _count: { signers: 2, fields: 3 } });
    const deliveries = await t.database.handle.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', event.id).orderBy('webhook_id').execute();
    expect(deliveries.map((d) => d.webhook_id)).toEqual(['whk_also', 'whk_subscribed']);
    for (const d of deliveries) {
      expect(d).toMatchObject({ org_id: orgId, event_type: 'document.created', status: 'pending', attempt_count: 0, leased_until: null, last_status_code: null });
      expect(d.id).toMatch(/^dlv_[0-9a-hjkmnp-tv-z]{26}$/);
      expect(d.next_attempt_at).toBe(d.created_at);
    }
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(2);
  });

  it('nothing when a part fails', async () => {
    await addWebhook('whk_broken', 'not json');
    try {
      const before = await t.database.handle.db.selectFrom('documents').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
      const res = await t.request('POST', '/api/v1/documents', { key, body: { name: 'Doomed', signers: [signer(1, { email: 'doomed@example.test' })] } });
      expect(res.status, JSON.stringify(res.body)).toBe(500);
      const after = await t.database.handle.db.selectFrom('documents').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect(await t.database.handle.db.selectFrom('documents').select('id').where('name', '=', 'Doomed').execute()).toEqual([]);
      expect(await t.database.handle.db.selectFrom('signers').select('id').where('email', '=', 'doomed@example.test').execute()).toEqual([]);
      expect(await t.database.handle.db.selectFrom('audit_logs').select('id').where('details', 'like', '%Doomed%').execute()).toEqual([]);
    } finally {
      await t.database.handle.db.deleteFrom('webhooks').where('id', '=', 'whk_broken').execute();
    }
  });
});
