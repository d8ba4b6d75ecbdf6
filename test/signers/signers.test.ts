import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { mailTo, readyDocument } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const signersUrl = (docId: string) => `/api/v1/documents/${docId}/signers`;
const add = (docId: string, body: unknown) => t.request('POST', signersUrl(docId), { body });
const patch = (docId: string, signerId: string, body: unknown, headers?: Record<string, string>) =>
  t.request('PATCH', `${signersUrl(docId)}/${signerId}`, { body, headers });

async function auditActions(docId: string): Promise<{ action: string; details: string }[]> {
  const res = await t.request('GET', `/api/v1/documents/${docId}/audit?limit=100`);
  return res.body.data;
}

describe('POST /api/v1/documents/{id}/signers', () => {
  it('adds a signer with defaults: role signer, next order, status pending, email lower-cased', async () => {
    const docId = await createDocument(t);
    const res = await add(docId, { name: 'Ada Lovelace', email: 'Ada@Example.TEST' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      role: 'signer',
      status: 'pending',
      order: 0,
      phone: null,
      signedAt: null,
    });
    expect(res.body.data.id).toMatch(/^sgn_/);
    const second = await add(docId, {
      name: 'Bob',
      email: 'bob@example.test',
      role: 'cc',
      phone: '+33 1 23 45 67 89',
    });
    // A number in international form is kept in E.164.
    expect(second.body.data).toMatchObject({ order: 1, role: 'cc', phone: '+33123456789' });
    const detail = await t.request('GET', `/api/v1/documents/${docId}`);
    expect(detail.body.data._count.signers).toBe(2);
    const audit = await auditActions(docId);
    expect(audit.filter((a) => a.action === 'signer.added').map((a) => a.details)).toEqual([
      'Added signer Ada Lovelace <ada@example.test> (order 0)',
      'Added cc Bob <bob@example.test> (order 1)',
    ]);
  });

  it('defaults order to after the highest one, gaps included', async () => {
    const docId = await createDocument(t);
    expect((await add(docId, signer(1, { order: 4 }))).body.data.order).toBe(4);
    expect((await add(docId, signer(2))).body.data.order).toBe(5);
    expect((await add(docId, signer(3, { order: 0 }))).body.data.order).toBe(0);
  });

  it('refuses an order already taken (400) and keeps the signers as they were', async () => {
    const docId = await createDocument(t, { signers: [signer(1), signer(2)] });
    const res = await add(docId, signer(3, { order: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'body.order', message: '1 is already taken by another signer' },
    ]);
    expect((await t.request('GET', signersUrl(docId))).body.data).toHaveLength(2);
  });

  it.each([
    ['', 400],
    ['a', 201],
    ['n'.repeat(200), 201],
    ['n'.repeat(201), 400],
    ['   ', 400],
  ])('name %# at its boundary gives %i', async (name, status) => {
    const docId = await createDocument(t);
    const res = await add(docId, { name, email: 'x@example.test' });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.details[0].path).toBe('body.name');
    else expect(res.body.data.name).toBe(name);
  });

  it.each([
    [{ name: 'x' }, 'body.email'],
    [{ name: 'x', email: 'not-an-email' }, 'body.email'],
    [{ name: 'x', email: 'x@example.test', role: 'witness' }, 'body.role'],
    [{ name: 'x', email: 'x@example.test', order: -1 }, 'body.order'],
    [{ name: 'x', email: 'x@example.test', order: 1.5 }, 'body.order'],
    [{ name: 'x', email: 'x@example.test', status: 'completed' }, 'body.status'],
    [{ name: 'x', email: 'x@example.test', phone: 'call me' }, 'body.phone'],
  ])('refuses %j at %s', async (body, path) => {
    const docId = await createDocument(t);
    const res = await add(docId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('accepts at most 50 signers (409 limit_reached for the 51st)', async () => {
    const docId = await createDocument(t, {
      signers: Array.from({ length: 49 }, (_, i) => signer(i)),
    });
    expect((await add(docId, signer(49))).status).toBe(201);
    const res = await add(docId, signer(50));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('limit_reached');
    expect((await t.request('GET', `/api/v1/documents/${docId}`)).body.data._count.signers).toBe(
      50,
    );
  });

  it('concurrent adds cannot share an order or pass the limit', async () => {
    const docId = await createDocument(t, {
      signers: Array.from({ length: 47 }, (_, i) => signer(i)),
    });
    const sameOrder = await Promise.all([
      add(docId, signer(100, { order: 47 })),
      add(docId, signer(101, { order: 47 })),
    ]);
    expect(sameOrder.map((r) => r.status).sort()).toEqual([201, 400]);
    const crowd = await Promise.all(
      Array.from({ length: 5 }, (_, i) => add(docId, signer(200 + i))),
    );
    expect(crowd.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    const listed = (await t.request('GET', `${signersUrl(docId)}?limit=100`)).body.data as {
      order: number;
    }[];
    expect(listed).toHaveLength(50);
    expect(new Set(listed.map((s) => s.order)).size).toBe(50);
  });

  it('is 404 for an unknown or deleted document', async () => {
    expect((await add('doc_nope', signer(1))).status).toBe(404);
    const docId = await createDocument(t);
    expect((await t.request('DELETE', `/api/v1/documents/${docId}`)).status).toBe(204);
    const res = await add(docId, signer(1));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('GET /api/v1/documents/{id}/signers', () => {
  it('lists signers by order, paginated with meta (numeric order across pages)', async () => {
    const orders = [12, 3, 10, 0, 9, 2, 11, 1];
    const docId = await createDocument(t, { signers: orders.map((o) => signer(o, { order: o })) });
    const all = await t.request('GET', signersUrl(docId));
    expect(all.status).toBe(200);
    expect(all.body.data.map((s: { order: number }) => s.order)).toEqual([
      0, 1, 2, 3, 9, 10, 11, 12,
    ]);
    expect(all.body.meta).toEqual({ count: 8, hasMore: false, nextCursor: null });

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const url = `${signersUrl(docId)}?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await t.request('GET', url);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: { order: number }) => s.order));
      cursor = page.body.meta.nextCursor;
      expect(page.body.meta.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([0, 1, 2, 3, 9, 10, 11, 12]);
  });

  it('refuses a cursor from another list and unknown query parameters', async () => {
    const docId = await createDocument(t, { signers: [signer(1), signer(2)] });
    const other = await createDocument(t, { signers: [signer(1), signer(2)] });
    const page = await t.request('GET', `${signersUrl(other)}?limit=1`);
    const res = await t.request('GET', `${signersUrl(docId)}?cursor=${page.body.meta.nextCursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_cursor');
    expect((await t.request('GET', `${signersUrl(docId)}?status=pending`)).status).toBe(400);
    expect((await t.request('GET', `${signersUrl(docId)}?limit=101`)).status).toBe(400);
  });

  it('is 404 for an unknown document', async () => {
    expect((await t.request('GET', signersUrl('doc_unknown'))).status).toBe(404);
  });
});

describe('PATCH /api/v1/documents/{id}/signers/{signerId} in draft', () => {
  it('changes any field and audits signer.updated', async () => {
    const docId = await createDocument(t, { signers: [signer(1)] });
    const [s] = (await t.request('GET', signersUrl(docId))).body.data;
    const before = (await t.request('GET', `/api/v1/documents/${docId}`)).body.data.updatedAt;
    t.clock.advance(1000);
    const res = await patch(docId, s.id, {
      name: 'Renamed',
      email: 'NEW@example.test',
      role: 'approver',
      phone: '+1 555 0100',
      order: 3,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.id,
      name: 'Renamed',
      email: 'new@example.test',
      role: 'approver',
      phone: '+1 555 0100',
      order: 3,
      status: 'pending',
    });
    expect((await patch(docId, s.id, { phone: null })).body.data.phone).toBeNull();
    const detail = (await t.request('GET', `/api/v1/documents/${docId}`)).body.data;
    expect(detail.signers[0]).toMatchObject({ name: 'Renamed', order: 3 });
    expect(detail.updatedAt > before).toBe(true);
    const updates = (await auditActions(docId)).filter((a) => a.action === 'signer.updated');
    expect(updates.map((a) => a.details)).toEqual([
      'Updated approver Renamed <new@example.test> (order 3): changed email, name, order, phone, role',
      'Updated approver Renamed <new@example.test> (order 3): changed phone',
    ]);
  });

  it('moves the fields of a signer that changes order, and refuses a taken order', async () => {
    const docId = await createDocument(t, {
      signers: [signer(1), signer(2)],
      fields: [
        field({ assignedTo: 0 }),
        field({ assignedTo: 0, type: 'date' }),
        field({ assignedTo: 1 }),
      ],
    });
    const [first, second] = (await t.request('GET', signersUrl(docId))).body.data;
    const taken = await patch(docId, first.id, { order: 1 });
    expect(taken.status).toBe(400);
    expect(taken.body.error.details).toEqual([
      { path: 'body.order', message: '1 is already taken by another signer' },
    ]);
    // Swap through a free order: each signer keeps its own fields.
    expect((await patch(docId, first.id, { order: 7 })).status).toBe(200);
    expect((await patch(docId, second.id, { order: 0 })).status).toBe(200);
    expect((await patch(docId, first.id, { order: 1 })).status).toBe(200);
    const fields = (await t.request('GET', `/api/v1/documents/${docId}/fields`)).body.data;
    expect(fields.map((f: { type: string; assignedTo: number }) => [f.type, f.assignedTo])).toEqual(
      [
        ['signature', 1],
        ['date', 1],
        ['signature', 0],
      ],
    );
  });

  it.each([
    [{ name: '' }, 400],
    [{ name: 'a' }, 200],
    [{ name: 'n'.repeat(200) }, 200],
    [{ name: 'n'.repeat(201) }, 400],
    [{}, 400],
    [{ status: 'completed' }, 400],
    [{ email: 'nope' }, 400],
    [{ order: -1 }, 400],
  ])('body %# gives %i', async (body, status) => {
    const docId = await createDocument(t, { signers: [signer(1)] });
    const [s] = (await t.request('GET', signersUrl(docId))).body.data;
    const res = await patch(docId, s.id, body);
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.code).toBe('validation_error');
  });

  it('is 404 for an unknown signer or a signer of another document', async () => {
    const docId = await createDocument(t, { signers: [signer(1)] });
    const otherDoc = await createDocument(t, { signers: [signer(1)] });
    const [foreign] = (await t.request('GET', signersUrl(otherDoc))).body.data;
    expect((await patch(docId, 'sgn_unknown', { name: 'x' })).status).toBe(404);
    const res = await patch(docId, foreign.id, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Signer not found');
    expect((await t.request('DELETE', `${signersUrl(docId)}/${foreign.id}`)).status).toBe(404);
    expect((await t.request('GET', signersUrl(otherDoc))).body.data[0].name).toBe('Signer 1');
  });
});

describe('DELETE /api/v1/documents/{id}/signers/{signerId}', () => {
  it('removes a signer of a draft (204), audits signer.removed, then 404', async () => {
    const docId = await createDocument(t, { signers: [signer(1), signer(2)] });
    const [first, second] = (await t.request('GET', signersUrl(docId))).body.data;
    const res = await t.request('DELETE', `${signersUrl(docId)}/${first.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(
      (await t.request('GET', signersUrl(docId))).body.data.map((s: { id: string }) => s.id),
    ).toEqual([second.id]);
    expect((await t.request('DELETE', `${signersUrl(docId)}/${first.id}`)).status).toBe(404);
    expect((await auditActions(docId)).map((a) => a.action)).toContain('signer.removed');
    // Its order is free again.
    expect((await add(docId, signer(3, { order: 0 }))).status).toBe(201);
  });
});

describe('signers once the document is sent', () => {
  it('refuses adding, removing and changing anything but name, email, phone and access code (409 invalid_state)', async () => {
    const docId = await readyDocument(t);
    expect((await t.request('POST', `/api/v1/documents/${docId}/send`)).status).toBe(200);
    const [s] = (await t.request('GET', signersUrl(docId))).body.data;
    const jobsBefore = await t.database.handle.db.selectFrom('jobs').select('id').execute();
    for (const res of [
      await add(docId, signer(9)),
      await t.request('DELETE', `${signersUrl(docId)}/${s.id}`),
      await patch(docId, s.id, { role: 'cc' }),
      await patch(docId, s.id, { order: 5 }),
      await patch(docId, s.id, { email: 'fixed@example.test', role: 'cc' }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('invalid_state');
    }
    // Nothing was enqueued by the refused requests.
    expect(await t.database.handle.db.selectFrom('jobs').select('id').execute()).toHaveLength(
      jobsBefore.length,
    );
    expect((await t.request('GET', signersUrl(docId))).body.data[0]).toMatchObject({
      id: s.id,
      email: s.email,
      role: 'signer',
    });
  });

  it('corrects an email in pending: new address invited, audit signer.updated, status kept', async () => {
    const tag = 'fix1';
    const docId = await readyDocument(t, { tag });
    await t.request('POST', `/api/v1/documents/${docId}/send`);
    await t.drainJobs();
    const [first, second] = (await t.request('GET', signersUrl(docId))).body.data;
    expect(first.status).toBe('sent');
    const res = await patch(
      docId,
      first.id,
      { email: 'Corrected-fix1@Example.test' },
      { 'user-agent': 'fix-agent/1.0' },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: first.id,
      email: 'corrected-fix1@example.test',
      status: 'sent',
      order: 0,
    });
    expect(mailTo(t, 'corrected-fix1@example.test')).toHaveLength(0); // committed as a job, sent by the worker
    await t.drainJobs();
    const mails = mailTo(t, 'corrected-fix1@example.test');
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain(`Doc ${tag}`);
    expect(mails[0].text).toContain('It is your turn to sign');
    const entry = (await auditActions(docId)).find((a) => a.action === 'signer.updated') as Record<
      string,
      string
    >;
    expect(entry.details).toBe(
      `Corrected email of signer Signer 0 <corrected-fix1@example.test> (order 0) (was <s0-${tag}@example.test>); invitation sent again`,
    );
    expect(entry.userAgent).toBe('fix-agent/1.0');

    // A signer waiting for its turn is corrected too; its invitation says it is not its turn yet.
    const named = await patch(docId, second.id, { name: 'Second Signer' });
    expect(named.status).toBe(200);
    expect(named.body.data).toMatchObject({ name: 'Second Signer', status: 'pending' });
    await t.drainJobs();
    const again = mailTo(t, `s1-${tag}@example.test`);
    expect(again).toHaveLength(2);
    expect(again[1].text).toContain('Hello Second Signer');
    expect(again[1].text).toContain('Other signers come before you');
  });

  it('corrects in action_required; a request that changes nothing sends nothing', async () => {
    const docId = await readyDocument(t, { tag: 'fix2' });
    await t.request('POST', `/api/v1/documents/${docId}/send`);
    await t.drainJobs();
    // action_required is entered by bounce or KYC handling (built elsewhere); set it directly.
    await t.database.handle.db
      .updateTable('documents')
      .set({ status: 'action_required' })
      .where('id', '=', docId)
      .execute();
    const [first] = (await t.request('GET', signersUrl(docId))).body.data;
    const same = await patch(docId, first.id, { email: first.email, name: first.name });
    expect(same.status).toBe(200);
    await t.drainJobs();
    expect(mailTo(t, first.email)).toHaveLength(1);
    const res = await patch(docId, first.id, { email: 'other-fix2@example.test' });
    expect(res.status).toBe(200);
    await t.drainJobs();
    expect(mailTo(t, 'other-fix2@example.test')).toHaveLength(1);
  });

  it('refuses to correct a signer who has completed, and any edit once cancelled or completed', async () => {
    const docId = await readyDocument(t, { tag: 'fix3' });
    await t.request('POST', `/api/v1/documents/${docId}/send`);
    const [first, second] = (await t.request('GET', signersUrl(docId))).body.data;
    // Signing is built elsewhere; mark the first signer completed directly.
    await t.database.handle.db
      .updateTable('signers')
      .set({ status: 'completed', signed_at: new Date().toISOString() })
      .where('id', '=', first.id)
      .execute();
    const done = await patch(docId, first.id, { email: 'late@example.test' });
    expect(done.status).toBe(409);
    expect(done.body.error.message).toBe('Cannot correct a signer who is completed');
    expect((await t.request('POST', `/api/v1/documents/${docId}/cancel`)).status).toBe(200);
    const cancelled = await patch(docId, second.id, { name: 'Too late' });
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error.code).toBe('invalid_state');
    const completed = await readyDocument(t, { tag: 'fix4' });
    await t.database.handle.db
      .updateTable('documents')
      .set({ status: 'completed' })
      .where('id', '=', completed)
      .execute();
    const [s] = (await t.request('GET', signersUrl(completed))).body.data;
    expect((await patch(completed, s.id, { name: 'x' })).status).toBe(409);
  });
});
