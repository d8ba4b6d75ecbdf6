import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
// These tests are about the lifecycle, not the upload: the helpers set the file columns directly.
import { giveFileDirectly, mailTo, readyDocument } from '../signers/setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const send = (id: string, headers?: Record<string, string>) =>
  t.request('POST', `/api/v1/documents/${id}/send`, { headers });
const cancel = (id: string, headers?: Record<string, string>) =>
  t.request('POST', `/api/v1/documents/${id}/cancel`, { headers });
const signersOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}/signers`)).body.data as {
    id: string;
    email: string;
    status: string;
    order: number;
    role: string;
  }[];

describe('POST /api/v1/documents/{id}/send preconditions', () => {
  it('needs signers, then fields, then a file (409 with a code for each)', async () => {
    const id = await createDocument(t);
    const noSigners = await send(id);
    expect(noSigners.status).toBe(409);
    expect(noSigners.body.error.code).toBe('missing_signers');
    await t.request('POST', `/api/v1/documents/${id}/signers`, { body: signer(1) });
    expect((await send(id)).body.error.code).toBe('missing_fields');
    await t.request('POST', `/api/v1/documents/${id}/fields`, { body: field() });
    const noFile = await send(id);
    expect(noFile.status).toBe(409);
    expect(noFile.body.error.code).toBe('missing_file');
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data.status).toBe('draft');
    await giveFileDirectly(t, id);
    expect((await send(id)).status).toBe(200);
  });

  it('refuses a field on a page the file does not have (placed before the file, or kept from a longer one)', async () => {
    const id = await createDocument(t, {
      name: 'Short file',
      signers: [signer(1)],
      fields: [field({ page: 1 }), field({ page: 3 })],
    });
    await giveFileDirectly(t, id, 2);
    const refused = await send(id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
    expect(refused.body.error.message).toMatch(
      /^Field fld_\w+ is on page 3, but the file has 2 page\(s\)/,
    );
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data.status).toBe('draft');
    await giveFileDirectly(t, id, 3);
    expect((await send(id)).status).toBe(200);
  });

  it('refuses a document that is not a draft, and an unknown one', async () => {
    const id = await readyDocument(t);
    expect((await send(id)).status).toBe(200);
    const again = await send(id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
    expect((await send('doc_unknown')).status).toBe(404);
  });
});

describe('POST /api/v1/documents/{id}/send', () => {
  it('sequential: pending, signerCount and sentAt; everyone mailed, only the lowest order may act', async () => {
    const tag = 'seq';
    const id = await createDocument(t, {
      name: 'Sequential deal',
      signers: [
        signer(0, { email: `c-${tag}@example.test`, order: 5 }),
        signer(1, { email: `a-${tag}@example.test`, order: 2 }),
        signer(2, { email: `b-${tag}@example.test`, order: 3, role: 'approver' }),
      ],
      fields: [field({ assignedTo: 2 }), field({ assignedTo: 3 }), field({ assignedTo: 5 })],
    });
    await giveFileDirectly(t, id);
    const before = Date.now();
    const res = await send(id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id,
      status: 'pending',
      signerCount: 3,
      sentAt: expect.any(String),
    });
    expect(Date.parse(res.body.data.sentAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(res.body.data.sentAt).toMatch(/\.\d{3}Z$/);
    const doc = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
    expect(doc.status).toBe('pending');
    expect((await signersOf(id)).map((s) => [s.order, s.status])).toEqual([
      [2, 'sent'],
      [3, 'pending'],
      [5, 'pending'],
    ]);
    await t.drainJobs();
    for (const who of ['a', 'b', 'c']) {
      const mails = mailTo(t, `${who}-${tag}@example.test`);
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toContain('Sequential deal');
    }
    expect(mailTo(t, `a-${tag}@example.test`)[0].text).toContain('It is your turn to sign');
    expect(mailTo(t, `b-${tag}@example.test`)[0].text).toContain('Other signers come before you');
  });

  it('parallel: every signer may act at once and is mailed', async () => {
    const id = await readyDocument(t, {
      signers: 3,
      tag: 'par',
      body: { signingType: 'parallel' },
    });
    const res = await send(id);
    expect(res.body.data).toMatchObject({ status: 'pending', signerCount: 3 });
    expect((await signersOf(id)).map((s) => s.status)).toEqual(['sent', 'sent', 'sent']);
    await t.drainJobs();
    for (let i = 0; i < 3; i++) {
      const mails = mailTo(t, `s${i}-par@example.test`);
      expect(mails).toHaveLength(1);
      expect(mails[0].text).toContain('It is your turn to sign');
    }
  });
});

describe('POST /api/v1/documents/{id}/cancel', () => {
  it('cancels; cancelledSigners counts those who had not completed, each notified', async () => {
    const tag = 'cxl';
    const id = await readyDocument(t, { signers: 3, tag, body: { signingType: 'parallel' } });
    await send(id);
    await t.drainJobs();
    const [done] = await signersOf(id);
    // Signing is built elsewhere; record a completed signer directly.
    await t.database.handle.db
      .updateTable('signers')
      .set({ status: 'completed', signed_at: new Date().toISOString() })
      .where('id', '=', done.id)
      .execute();
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id, status: 'cancelled', cancelledSigners: 2 });
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data.status).toBe('cancelled');
    expect((await signersOf(id)).map((s) => s.status)).toEqual([
      'completed',
      'cancelled',
      'cancelled',
    ]);
    await t.drainJobs();
    // The completed signer got its invitation and nothing more.
    expect(mailTo(t, `s0-${tag}@example.test`).map((m) => m.subject)).toEqual([
      expect.not.stringContaining('cancelled'),
    ]);
    for (const i of [1, 2]) {
      const mails = mailTo(t, `s${i}-${tag}@example.test`);
      expect(mails).toHaveLength(2);
      expect(mails[1].subject).toBe(`"Doc ${tag}" was cancelled`);
    }
    expect((await cancel(id)).status).toBe(409);
  });

  it('refuses a draft (409 invalid_state)', async () => {
    const id = await createDocument(t);
    const res = await cancel(id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
  });

  it('cancels a document in action_required', async () => {
    const id = await readyDocument(t);
    await send(id);
    await t.database.handle.db
      .updateTable('documents')
      .set({ status: 'action_required' })
      .where('id', '=', id)
      .execute();
    expect((await cancel(id)).body.data).toMatchObject({
      status: 'cancelled',
      cancelledSigners: 2,
    });
  });
});

describe('DELETE /api/v1/documents/{id}', () => {
  it('deletes a draft (204): then 404 everywhere and absent from the list', async () => {
    const id = await createDocument(t, { name: 'To be deleted' });
    const res = await t.request('DELETE', `/api/v1/documents/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request('GET', `/api/v1/documents/${id}`)).status).toBe(404);
    expect((await t.request('GET', `/api/v1/documents/${id}/audit`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/documents/${id}`)).status).toBe(404);
    const list = await t.request('GET', '/api/v1/documents?limit=100&search=to%20be%20deleted');
    expect(list.body.data).toEqual([]);
  });

  it('refuses pending and action_required (cancel first), then deletes once cancelled', async () => {
    const id = await readyDocument(t);
    await send(id);
    const pending = await t.request('DELETE', `/api/v1/documents/${id}`);
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('invalid_state');
    await t.database.handle.db
      .updateTable('documents')
      .set({ status: 'action_required' })
      .where('id', '=', id)
      .execute();
    expect((await t.request('DELETE', `/api/v1/documents/${id}`)).status).toBe(409);
    await cancel(id);
    expect((await t.request('DELETE', `/api/v1/documents/${id}`)).status).toBe(204);
    expect((await t.request('GET', `/api/v1/documents/${id}`)).status).toBe(404);
  });
});

describe('GET /api/v1/documents/{id}/audit', () => {
  it('is oldest first and paginated, with IP and user agent on each entry', async () => {
    const ua = { 'user-agent': 'lifecycle-test/2.0' };
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Audited', signers: [signer(1)], fields: [field()] },
      headers: ua,
    });
    const id = res.body.data.id;
    await giveFileDirectly(t, id);
    await t.request('POST', `/api/v1/documents/${id}/signers`, { body: signer(2), headers: ua });
    await t.request('POST', `/api/v1/documents/${id}/fields`, {
      body: field({ assignedTo: 1 }),
      headers: ua,
    });
    await send(id, ua);
    await cancel(id, ua);

    const entries: Record<string, string>[] = [];
    let cursor: string | null = null;
    do {
      const page = await t.request(
        'GET',
        `/api/v1/documents/${id}/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      entries.push(...page.body.data);
      cursor = page.body.meta.nextCursor;
      expect(page.body.meta.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(entries.map((e) => e.action)).toEqual([
      'document.created',
      'signer.added',
      'field.added',
      'document.sent',
      'document.cancelled',
    ]);
    const times = entries.map((e) => e.createdAt);
    expect([...times].sort()).toEqual(times);
    for (const e of entries) {
      expect(e.ipAddress).toBe('127.0.0.1');
      expect(e.userAgent).toBe('lifecycle-test/2.0');
      expect(Object.keys(e).sort()).toEqual([
        'action',
        'createdAt',
        'details',
        'geoCity',
        'geoCountry',
        'id',
        'ipAddress',
        'userAgent',
      ]);
    }
    expect(entries.find((e) => e.action === 'document.sent')?.details).toContain(
      'signer1@example.test',
    );
  });
});

describe('paging through many documents', () => {
  it('returns each of 250 documents exactly once with limit 100, newest first, nextCursor null at the end', async () => {
    const org = await t.newOrg('Pager');
    const created: string[] = [];
    for (let i = 0; i < 250; i++)
      created.push(await createDocument(t, { name: `Page doc ${i}` }, org.key));
    const seen: string[] = [];
    const counts: number[] = [];
    let cursor: string | null = null;
    let meta: { hasMore: boolean; nextCursor: string | null } | undefined;
    do {
      const res = await t.request(
        'GET',
        `/api/v1/documents?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        { key: org.key },
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      counts.push(res.body.meta.count);
      meta = res.body.meta;
      cursor = res.body.meta.nextCursor;
    } while (cursor);
    expect(counts).toEqual([100, 100, 50]);
    expect(meta).toEqual({ count: 50, hasMore: false, nextCursor: null });
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual([...created].reverse());
  });
});

describe('Idempotency-Key on POST /api/v1/documents', () => {
  it('replays the first 201 for the same body and creates one document; another body is 409', async () => {
    const org = await t.newOrg('Idem');
    const headers = { 'idempotency-key': 'create-nda-1' };
    const body = { name: 'Idempotent NDA', message: 'once' };
    const first = await t.request('POST', '/api/v1/documents', { body, headers, key: org.key });
    expect(first.status).toBe(201);
    const replay = await t.request('POST', '/api/v1/documents', { body, headers, key: org.key });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    const list = await t.request('GET', '/api/v1/documents', { key: org.key });
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([first.body.data.id]);
    const conflict = await t.request('POST', '/api/v1/documents', {
      body: { ...body, message: 'twice' },
      headers,
      key: org.key,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
    expect((await t.request('GET', '/api/v1/documents', { key: org.key })).body.data).toHaveLength(
      1,
    );
    // Keys belong to an organization: the same key elsewhere is a new request.
    const elsewhere = await t.request('POST', '/api/v1/documents', { body, headers });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.data.id).not.toBe(first.body.data.id);
  });
});
