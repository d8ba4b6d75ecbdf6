import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field, signer } from '../helpers/factories.ts';
import { batchStats, insertBatched } from '../../src/db/pg-insert-batch.ts';
import { DELIVERIES_OF_EVENTS_PG, deliveryId } from '../../src/modules/events/emit.ts';
import { dialectName } from '../helpers/database.ts';
import type { WebhookStatus } from '../../src/db/database.ts';

/*
 * What one create writes, whichever way the dialect writes it (a transaction on SQLite, one
 * statement on PostgreSQL): the document, its signers and fields, its audit entry, its event and
 * one pending delivery per active webhook subscribed to document.created; all of it or nothing.
 * On PostgreSQL the creates of one turn of the event loop share a statement (db/pg-insert-batch.ts):
 * each must still get exactly its own rows, and one's failure must not fail the others.
 */

let t: TestApp;
let orgId: string;
let key: string;
const now = '2026-01-01T00:00:00.000Z';

async function addWebhook(
  id: string,
  events: string,
  status: WebhookStatus = 'active',
  org = orgId,
) {
  await t.database.handle.db
    .insertInto('webhooks')
    .values({
      id,
      org_id: org,
      url: 'https://hooks.example.test/in',
      events,
      status,
      description: null,
      secret: 's',
      failure_count: 0,
      created_at: now,
      updated_at: now,
    })
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
      body: {
        name: 'Rows',
        signers: [signer(1), signer(2)],
        fields: [
          field({ assignedTo: 0 }),
          field({ assignedTo: 1 }),
          field({ assignedTo: 0, x: 50 }),
        ],
      },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    const detail = (await t.request('GET', `/api/v1/documents/${id}`, { key })).body.data;
    expect(detail.signers).toHaveLength(2);
    expect(detail.fields).toHaveLength(3);
    const audit = await t.database.handle.db
      .selectFrom('audit_logs')
      .select(['action', 'org_id'])
      .where('document_id', '=', id)
      .execute();
    expect(audit).toEqual([{ action: 'document.created', org_id: orgId }]);
    const events = await t.database.handle.db
      .selectFrom('events')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('type', '=', 'document.created')
      .execute();
    const event = events.find((e) => JSON.parse(e.data).id === id)!;
    expect(JSON.parse(event.data)).toMatchObject({
      id,
      name: 'Rows',
      status: 'draft',
      _count: { signers: 2, fields: 3 },
    });
    const deliveries = await t.database.handle.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', event.id)
      .orderBy('webhook_id')
      .execute();
    expect(deliveries.map((d) => d.webhook_id)).toEqual(['whk_also', 'whk_subscribed']);
    for (const d of deliveries) {
      expect(d).toMatchObject({
        org_id: orgId,
        event_type: 'document.created',
        status: 'pending',
        attempt_count: 0,
        leased_until: null,
        last_status_code: null,
      });
      expect(d.id).toMatch(/^dlv_[0-9a-hjkmnp-tv-z]{26}$/);
      // One id scheme on every path (emit.ts): the event's time, then a digest of both ids.
      expect(d.id).toBe(deliveryId(event.id, d.webhook_id));
      expect(d.id.slice(4, 14)).toBe(event.id.slice(4, 14));
      expect(d.next_attempt_at).toBe(d.created_at);
    }
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(2);
  });

  it('nothing when a part fails', async () => {
    await addWebhook('whk_broken', 'not json');
    try {
      const before = await t.database.handle.db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow();
      const res = await t.request('POST', '/api/v1/documents', {
        key,
        body: { name: 'Doomed', signers: [signer(1, { email: 'doomed@example.test' })] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(500);
      const after = await t.database.handle.db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect(
        await t.database.handle.db
          .selectFrom('documents')
          .select('id')
          .where('name', '=', 'Doomed')
          .execute(),
      ).toEqual([]);
      expect(
        await t.database.handle.db
          .selectFrom('signers')
          .select('id')
          .where('email', '=', 'doomed@example.test')
          .execute(),
      ).toEqual([]);
      expect(
        await t.database.handle.db
          .selectFrom('audit_logs')
          .select('id')
          .where('details', 'like', '%Doomed%')
          .execute(),
      ).toEqual([]);
    } finally {
      await t.database.handle.db.deleteFrom('webhooks').where('id', '=', 'whk_broken').execute();
    }
  });

  it('exactly what was sent, values the database would have to quote included', async () => {
    const name = `Quote " back\\slash {brace}, comma; NULL 'single' ünï €`;
    const message = 'NULL';
    const res = await t.request('POST', '/api/v1/documents', {
      key,
      body: {
        name,
        message,
        signers: [
          signer(1, { name: '{"a":1}', email: 'quote@example.test' }),
          signer(2, { name: 'Back\\ \\\\ "end' }),
        ],
        fields: [field({ assignedTo: 1, label: 'a,b"c' })],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.data.id;
    const doc = await t.database.handle.db
      .selectFrom('documents')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(doc).toMatchObject({
      name,
      search_name: name.toLowerCase(),
      message,
      email_subject: null,
      folder_id: null,
      file_size: 0,
      require_kyc: 0,
    });
    const signers = await t.database.handle.db
      .selectFrom('signers')
      .selectAll()
      .where('document_id', '=', id)
      .orderBy('position')
      .execute();
    expect(signers.map((r) => [r.name, r.email, r.phone, r.signed_at])).toEqual([
      ['{"a":1}', 'quote@example.test', null, null],
      ['Back\\ \\\\ "end', signer(2).email, null, null],
    ]);
    const fields = await t.database.handle.db
      .selectFrom('fields')
      .selectAll()
      .where('document_id', '=', id)
      .execute();
    expect(fields).toHaveLength(1);
    expect(fields[0]).toMatchObject({ label: 'a,b"c', assigned_to: 1 });
    expect(typeof fields[0].x).toBe('number');
  });

  it('a lone surrogate (half a character) is stored as on every other path, not refused', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      key,
      body: { name: 'x\udfffy', message: '\ud800', signers: [signer(1, { name: 'a\udbffb' })] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.data.id;
    const doc = await t.database.handle.db
      .selectFrom('documents')
      .select(['name', 'message'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // One U+FFFD in its place, on both databases.
    expect(doc).toEqual({ name: 'x\ufffdy', message: '\ufffd' });
    const signers = await t.database.handle.db
      .selectFrom('signers')
      .select('name')
      .where('document_id', '=', id)
      .execute();
    expect(signers).toEqual([{ name: 'a\ufffdb' }]);
    // Read back through a filter on the stored value, as a search or a lookup would.
    expect(
      await t.database.handle.db
        .selectFrom('documents')
        .select('id')
        .where('name', '=', 'x\udfffy')
        .execute(),
    ).toEqual([{ id }]);
  });

  it('many at once: each gets its own rows', async () => {
    const before = dialectName === 'postgres' ? { ...batchStats(t.database.handle.db) } : undefined;
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.request('POST', '/api/v1/documents', {
          key,
          body: {
            name: `Many ${i}`,
            signers: Array.from({ length: i % 3 }, (_, j) =>
              signer(j + 1, { email: `many${i}-${j}@example.test` }),
            ),
          },
        }),
      ),
    );
    for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const ids = replies.map((r) => r.body.data.id as string);
    expect(new Set(ids).size).toBe(30);
    const db = t.database.handle.db;
    for (const [i, id] of ids.entries()) {
      const doc = await db
        .selectFrom('documents')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(doc.name).toBe(`Many ${i}`);
      const emails = await db
        .selectFrom('signers')
        .select('email')
        .where('document_id', '=', id)
        .orderBy('position')
        .execute();
      expect(emails.map((e) => e.email)).toEqual(
        Array.from({ length: i % 3 }, (_, j) => `many${i}-${j}@example.test`),
      );
      const audit = await db
        .selectFrom('audit_logs')
        .select('details')
        .where('document_id', '=', id)
        .execute();
      expect(audit).toEqual([{ details: `Document "Many ${i}" created` }]);
    }
    const events = await db
      .selectFrom('events')
      .select('data')
      .where('org_id', '=', orgId)
      .where('type', '=', 'document.created')
      .execute();
    const eventIds = events
      .map((e) => JSON.parse(e.data).id as string)
      .filter((id) => ids.includes(id));
    expect(eventIds.sort()).toEqual([...ids].sort());
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select(['events.data', 'webhook_deliveries.webhook_id'])
      .where('events.org_id', '=', orgId)
      .execute();
    for (const id of ids) {
      expect(
        deliveries
          .filter((d) => JSON.parse(d.data).id === id)
          .map((d) => d.webhook_id)
          .sort(),
      ).toEqual(['whk_also', 'whk_subscribed']);
    }
    if (before) {
      // Fewer statements than creates: they were batched.
      const after = batchStats(db);
      expect(after.creates - before.creates).toBe(30);
      expect(after.statements - before.statements).toBeLessThan(30);
    }
  });
});

describe.skipIf(dialectName !== 'postgres')(
  'PostgreSQL: batched creates (skipped without TEST_DATABASE_URL)',
  () => {
    it("one create's failure fails it alone", async () => {
      const other = await t.newOrg('Broken hooks');
      await addWebhook('whk_broken_other', 'not json', 'active', other.orgId);
      const db = t.database.handle.db;
      const before = { ...batchStats(db) };
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.request('POST', '/api/v1/documents', {
            key: i % 2 ? other.key : key,
            body: { name: `Mixed ${i}` },
          }),
        ),
      );
      expect(replies.map((r) => r.status)).toEqual(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? 500 : 201)),
      );
      expect(batchStats(db).retriedAlone - before.retriedAlone).toBeGreaterThan(0);
      const names = await db
        .selectFrom('documents')
        .select('name')
        .where('name', 'like', 'Mixed %')
        .orderBy('name')
        .execute();
      expect(names.map((n) => n.name)).toEqual([
        'Mixed 0',
        'Mixed 2',
        'Mixed 4',
        'Mixed 6',
        'Mixed 8',
      ]);
      expect(
        await db.selectFrom('documents').select('id').where('org_id', '=', other.orgId).execute(),
      ).toEqual([]);
    });

    it('stores every column of every table as given (rows go by position: none may land in another column)', async () => {
      const db = t.database.handle.db;
      // Every column a distinct value (or null where it may be), of its own type.
      const document = {
        id: 'doc_batch_every',
        org_id: orgId,
        name: 'Every column',
        search_name: 'every column',
        status: 'draft',
        signing_type: 'parallel',
        message: 'msg',
        email_subject: 'subject',
        email_message: 'body',
        locale: 'de',
        reminder_frequency: 'weekly',
        otp_method: 'email',
        require_kyc: 1,
        allow_reassign: 1,
        send_completed_copy: 0,
        redirect_url: 'https://example.test/done',
        expires_at: '2027-01-01T00:00:00.000Z',
        completed_at: '2026-12-01T00:00:00.000Z',
        sent_at: '2026-11-01T00:00:00.000Z',
        template_id: null,
        campaign_id: null,
        bulk_send_id: 'bulk_1',
        folder_id: null,
        file_key: 'files/a.pdf',
        original_file_key: 'files/a.docx',
        original_content_type: 'application/msword',
        file_size: 2_000_000_000,
        page_count: 7,
        document_hash: 'h1',
        signed_file_key: 'files/s.pdf',
        signed_file_hash: 'h2',
        created_at: now,
        updated_at: '2026-01-02T00:00:00.000Z',
        deleted_at: null,
        pending_upload_key: 'up/x',
        pending_upload_content_type: 'application/pdf',
        pending_upload_max_bytes: 1234,
        pending_upload_expires_at: '2026-01-03T00:00:00.000Z',
        sealing_error: 'e',
        pades_level: 'B-LTA',
        timestamp_expires_at: '2027-01-01T00:00:00.000Z',
        timestamp_renewal_claimed_until: '2026-01-04T00:00:00.000Z',
        warnings: '[{"code":"invalid_tag","message":"m","page":1}]',
        shown_file_hash: 'h3',
        pending_upload_text_tags: 1,
      };
      const signerRow = {
        id: 'sig_batch_every',
        document_id: document.id,
        name: 'S',
        email: 's@example.test',
        phone: '+15550100',
        locale: 'ar',
        role: 'approver',
        position: 3,
        status: 'sent',
        signed_at: null,
        created_at: now,
        updated_at: '2026-01-04T00:00:00.000Z',
        viewed_at: '2026-01-05T00:00:00.000Z',
        ip_address: '10.0.0.1',
        user_agent: 'UA',
        geo_city: 'Lyon',
        geo_country: 'FR',
        decline_reason: 'no',
        verification_status: 'pending',
        verification_note: 'note',
        last_notified_at: '2026-01-06T00:00:00.000Z',
        delivery: 'embedded',
        signing_group: 2,
        otp_method: 'sms',
        sms_failed_at: '2026-01-08T00:00:00.000Z',
        sms_error: 'gateway 400',
      };
      const fieldRow = {
        id: 'fld_batch_every',
        document_id: document.id,
        type: 'checkbox',
        label: 'L',
        page: 2,
        x: 0.1,
        y: 12.75,
        width: 1e-7,
        height: 99.5,
        required: 1,
        read_only: 0,
        assigned_to: 3,
        placeholder: 'p',
        default_value: 'd',
        options: '["a","b"]',
        value: 'v',
        origin: 'tag',
        created_at: now,
        updated_at: '2026-01-07T00:00:00.000Z',
      };
      const auditRow = {
        id: 'aud_batch_every',
        org_id: orgId,
        document_id: document.id,
        action: 'document.created',
        details: 'd',
        ip_address: '10.0.0.2',
        user_agent: 'UA2',
        geo_city: 'Oslo',
        geo_country: 'NO',
        created_at: now,
      };
      const eventRow = {
        id: 'evt_batch_every',
        org_id: orgId,
        type: 'document.sent',
        data: '{"a":[1,"x"]}',
        created_at: now,
      };
      await insertBatched(
        db,
        {
          documents: [document],
          signers: [signerRow],
          fields: [fieldRow],
          audit_logs: [auditRow],
          events: [eventRow],
        } as never,
        DELIVERIES_OF_EVENTS_PG,
      );
      const stored = async (
        table: 'documents' | 'signers' | 'fields' | 'audit_logs' | 'events',
        id: string,
      ) => db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(await stored('documents', document.id)).toEqual(document);
      const signerStored = await stored('signers', signerRow.id);
      expect(signerStored).toEqual({
        ...Object.fromEntries(Object.keys(signerStored).map((k) => [k, null])),
        ...signerRow,
      });
      expect(await stored('fields', fieldRow.id)).toEqual(fieldRow);
      expect(await stored('audit_logs', auditRow.id)).toEqual(auditRow);
      expect(await stored('events', eventRow.id)).toEqual(eventRow);
    });

    it('refuses a row with a column its table does not have, and only that create', async () => {
      const db = t.database.handle.db;
      const doc = await t.request('POST', '/api/v1/documents', { key, body: { name: 'Audited' } });
      const row = (id: string, extra: Record<string, unknown> = {}) =>
        ({
          id,
          org_id: orgId,
          document_id: doc.body.data.id,
          action: 'document.created',
          details: id,
          ip_address: '127.0.0.1',
          user_agent: '',
          geo_city: '',
          geo_country: '',
          created_at: now,
          ...extra,
        }) as never;
      const results = await Promise.allSettled([
        insertBatched(db, { audit_logs: [row('aud_batch_good')] }, DELIVERIES_OF_EVENTS_PG),
        insertBatched(
          db,
          { audit_logs: [row('aud_batch_bad', { colour: 'red' })] },
          DELIVERIES_OF_EVENTS_PG,
        ),
      ]);
      expect(results[0].status, String((results[0] as PromiseRejectedResult).reason)).toBe(
        'fulfilled',
      );
      expect(results[1].status).toBe('rejected');
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/no column colour/);
      expect(
        await db
          .selectFrom('audit_logs')
          .select('id')
          .where('id', 'in', ['aud_batch_good', 'aud_batch_bad'])
          .execute(),
      ).toEqual([{ id: 'aud_batch_good' }]);
    });
  },
);
