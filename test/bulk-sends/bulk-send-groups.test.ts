import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type MemoryMailer, type TestApp } from '../helpers/build-test-app.ts';
import { processBulkRows } from '../../src/modules/bulk-sends/bulk-send-rows.ts';
import { bulkTemplate, clientRow } from './setup.ts';

/*
 * A bulk send creates and sends its rows' documents a group at a time, each group in one
 * transaction. A group that cannot go through as a whole leaves nothing behind, and its rows are
 * tried one by one: a row another runner took is skipped, a row that cannot be sent fails alone.
 */

let t: TestApp;
let tpl: string;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await bulkTemplate(t);
});
afterAll(async () => t.close());

const db = () => t.database.handle.db;
const mails = () => (t.mailer as MemoryMailer).sent;

async function documentsOf(bulkSendId: string) {
  return db()
    .selectFrom('documents')
    .select(['id', 'status', 'name'])
    .where('bulk_send_id', '=', bulkSendId)
    .execute();
}

describe('bulk send groups', () => {
  it('sends every row once when two runners hold overlapping rows at once (PostgreSQL: side by side)', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => clientRow(200 + i));
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Overlap', rows },
    });
    const id = res.body.data.id;
    // As after an expired lease: one runner holds rows 0-29, another 20-49; the second finds
    // some of its group taken, gives the group up and sends the rest of it row by row.
    await Promise.all([
      processBulkRows(t.app.deps, id, 0, 30),
      processBulkRows(t.app.deps, id, 20, 50),
    ]);
    const docs = await documentsOf(id);
    expect(docs).toHaveLength(50);
    expect(new Set(docs.map((d) => d.name)).size).toBe(50);
    const bulk = (await t.request('GET', `/api/v1/bulk-sends/${id}`)).body.data;
    expect(bulk).toMatchObject({ status: 'completed', total: 50, sent: 50, failed: 0 });
    await t.drainJobs();
  });

  it('leaves alone a row another runner took and sends the rest, writing each document whole', async () => {
    const before = mails().length;
    const rows = Array.from({ length: 30 }, (_, i) => clientRow(i));
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Groups', rows },
    });
    expect(res.status).toBe(202);
    const id = res.body.data.id;
    // Another runner took row 7 (it creates and counts that row's document itself).
    await db()
      .updateTable('bulk_send_rows')
      .set({ status: 'sent' })
      .where('bulk_send_id', '=', id)
      .where('position', '=', 7)
      .execute();
    await t.drainJobs();

    const docs = await documentsOf(id);
    expect(docs).toHaveLength(29);
    expect(docs.every((d) => d.status === 'pending')).toBe(true);
    expect(new Set(docs.map((d) => d.name)).size).toBe(29);
    expect(docs.map((d) => d.name)).not.toContain('Groups - Client 7');
    const bulk = (await t.request('GET', `/api/v1/bulk-sends/${id}`)).body.data;
    expect(bulk).toMatchObject({ status: 'completed', total: 30, sent: 29, failed: 0 });
    // Each row's client and the template's fixed witness, once per document.
    const to = mails()
      .slice(before)
      .map((m) => m.to);
    expect(to.filter((a) => a.startsWith('client')).sort()).toEqual(
      rows
        .map((r) => r.signers[0].email)
        .filter((e) => e !== 'client7@example.test')
        .sort(),
    );
    expect(to.filter((a) => a === 'wendy@example.test')).toHaveLength(29);
    // Every document's rows were written with it: signers, fields, sent audit entry, events.
    const ids = docs.map((d) => d.id);
    const count = async (table: 'signers' | 'fields' | 'signing_tokens') =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('document_id', 'in', ids)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('signers')).toBe(58);
    expect(await count('fields')).toBe(5 * 29);
    expect(await count('signing_tokens')).toBe(58);
    const audits = await db()
      .selectFrom('audit_logs')
      .select(['action'])
      .where('document_id', 'in', ids)
      .execute();
    expect(audits.filter((a) => a.action === 'document.sent')).toHaveLength(29);
    expect(audits.filter((a) => a.action === 'document.created')).toHaveLength(29);
    const events = await db()
      .selectFrom('events')
      .select(['type', 'data'])
      .where('type', 'in', ['document.created', 'document.sent'])
      .execute();
    const sentEvents = events
      .filter((e) => e.type === 'document.sent')
      .map((e) => JSON.parse(e.data));
    expect(sentEvents.filter((e) => ids.includes(e.id))).toHaveLength(29);
    expect(
      sentEvents
        .filter((e) => ids.includes(e.id))
        .every((e) => e.status === 'pending' && e.bulkSendId === id && e._count.signers === 2),
    ).toBe(true);
  });

  it('marks each row failed, alone, when its document cannot be sent (expiresAt passed before its turn)', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => clientRow(100 + i));
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Too late', expiresAt, rows },
    });
    expect(res.status).toBe(202);
    t.clock.advance(2 * 3600_000);
    await t.drainJobs();
    const bulk = (await t.request('GET', `/api/v1/bulk-sends/${res.body.data.id}`)).body.data;
    expect(bulk).toMatchObject({ status: 'completed', total: 25, sent: 0, failed: 25 });
    expect(await documentsOf(res.body.data.id)).toHaveLength(0);
    const errors = await db()
      .selectFrom('bulk_send_rows')
      .select(['status', 'error'])
      .where('bulk_send_id', '=', res.body.data.id)
      .execute();
    expect(
      errors.every((r) => r.status === 'failed' && /expiresAt has passed/.test(r.error ?? '')),
    ).toBe(true);
  });
});
