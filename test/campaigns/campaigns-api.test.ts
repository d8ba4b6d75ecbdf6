import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile, readyTemplate } from '../templates/setup.ts';
import { CREATE_KEYS, createCampaign, eventsOf, FULL_KEYS, LIST_KEYS } from './setup.ts';

let t: TestApp;
let templateId: string;
beforeAll(async () => {
  t = await buildTestApp();
  templateId = await readyTemplate(t);
});
afterAll(async () => t.close());

const create = (body: Record<string, unknown>) =>
  t.request('POST', '/api/v1/campaigns', { body: { templateId, name: 'C', ...body } });
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /api/v1/campaigns', () => {
  it('creates an active campaign with exactly the create-response fields and the defaults', async () => {
    const res = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId, name: 'Summer Sign-up 2026!' },
    });
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(Object.keys(c).sort()).toEqual(CREATE_KEYS);
    expect(c).toMatchObject({
      name: 'Summer Sign-up 2026!',
      status: 'active',
      maxSubmissions: 1_000_000,
      expiresAt: null,
      collectPhone: true,
      requireOtp: false,
      brandColor: '#4338CA',
      redirectUrl: '',
      templateId,
    });
    expect(c.id).toMatch(/^cmp_/);
    expect(c.slug).toMatch(/^summer-sign-up-2026-[a-z0-9]{6}$/);
    expect(c.createdAt).toMatch(ISO_MS);
    const full = await t.request('GET', `/api/v1/campaigns/${c.id}`);
    expect(full.body.data).toMatchObject({
      requireKyc: false,
      submissionCount: 0,
      welcomeTitle: '',
      welcomeMessage: '',
      updatedAt: c.createdAt,
    });
  });

  it('stores every create field as given', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const body = {
      templateId,
      name: 'All',
      welcomeTitle: 'Welcome',
      welcomeMessage: 'Please sign',
      maxSubmissions: 3,
      expiresAt,
      collectPhone: false,
      requireOtp: true,
      requireKyc: true,
      brandColor: '#00aa11',
      redirectUrl: 'https://example.com/thanks?x=1',
      locale: 'ar',
    };
    const res = await t.request('POST', '/api/v1/campaigns', { body });
    expect(res.status).toBe(201);
    const full = await t.request('GET', `/api/v1/campaigns/${res.body.data.id}`);
    expect(Object.keys(full.body.data).sort()).toEqual(FULL_KEYS);
    const { templateId: _t, ...rest } = body;
    expect(full.body.data).toMatchObject({ ...rest, status: 'active', submissionCount: 0 });
  });

  it('makes slugs from any name, unique per campaign', async () => {
    const a = await create({ name: 'Ça va? Été — Ünïcode' });
    expect(a.body.data.slug).toMatch(/^ca-va-ete-unicode-[a-z0-9]{6}$/);
    const b = await create({ name: '日本語' });
    expect(b.body.data.slug).toMatch(/^campaign-[a-z0-9]{6}$/);
    const c1 = await create({ name: 'Same' });
    const c2 = await create({ name: 'Same' });
    expect(c1.body.data.slug).not.toBe(c2.body.data.slug);
    const long = await create({ name: 'word '.repeat(40) });
    expect(long.body.data.slug.length).toBeLessThanOrEqual(60 + 7);
  });

  const at = (path: string) => (res: any) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
  };

  it.each([
    ['name', '', 400],
    ['name', ' ', 400],
    ['name', 'a', 201],
    ['name', 'x'.repeat(200), 201],
    ['name', 'x'.repeat(201), 400],
    ['welcomeTitle', 't'.repeat(200), 201],
    ['welcomeTitle', 't'.repeat(201), 400],
    ['welcomeTitle', '', 201],
    ['welcomeMessage', 'm'.repeat(1000), 201],
    ['welcomeMessage', 'm'.repeat(1001), 400],
    ['redirectUrl', `https://example.com/${'a'.repeat(2000 - 20)}`, 201],
    ['redirectUrl', `https://example.com/${'a'.repeat(2001 - 20)}`, 400],
    ['redirectUrl', '', 201],
    ['redirectUrl', 'http://localhost:3000/done', 201],
    ['redirectUrl', 'ftp://example.com/x', 400],
    ['redirectUrl', 'javascript:alert(1)', 400],
    ['redirectUrl', 'example.com/thanks', 400],
    ['redirectUrl', 'https://exa mple.com', 400],
    ['maxSubmissions', 0, 400],
    ['maxSubmissions', 1, 201],
    ['maxSubmissions', 1_000_000, 201],
    ['maxSubmissions', 1_000_001, 400],
    ['maxSubmissions', 2.5, 400],
    ['maxSubmissions', '5', 400],
    ['maxSubmissions', null, 400],
    ['brandColor', '#a1B2c3', 201],
    ['brandColor', '#A1B2C', 400],
    ['brandColor', '#A1B2C3D', 400],
    ['brandColor', 'A1B2C3', 400],
    ['brandColor', '#GGGGGG', 400],
    ['brandColor', 'red', 400],
    ['collectPhone', 'true', 400],
    ['requireOtp', 1, 400],
    ['requireKyc', 'yes', 400],
    ['expiresAt', 'tomorrow', 400],
    ['expiresAt', null, 201],
  ])('%s = %j gives %i', async (name, value, status) => {
    const res = await create({ [name]: value });
    if (status === 201) {
      expect(res.status).toBe(201);
      const full = await t.request('GET', `/api/v1/campaigns/${res.body.data.id}`);
      if (value !== null && value !== '') expect(full.body.data[name]).toBe(value);
    } else {
      at(`body.${name}`)(res);
    }
  });

  it('expiresAt must be in the future', async () => {
    at('body.expiresAt')(await create({ expiresAt: new Date(Date.now() - 1000).toISOString() }));
    const soon = new Date(Date.now() + 60_000).toISOString();
    const ok = await create({ expiresAt: soon });
    expect(ok.status).toBe(201);
    expect(ok.body.data.expiresAt).toBe(soon);
  });

  it('requires templateId and name, refuses read-only and unknown fields', async () => {
    at('body.templateId')(await t.request('POST', '/api/v1/campaigns', { body: { name: 'x' } }));
    at('body.name')(await t.request('POST', '/api/v1/campaigns', { body: { templateId } }));
    at('body.slug')(await create({ slug: 'mine' }));
    at('body.status')(await create({ status: 'paused' }));
    at('body.submissionCount')(await create({ submissionCount: 4 }));
    at('body.color')(await create({ color: '#000000' }));
  });

  it('refuses templates of another organization (400) and templates that cannot back a link (409)', async () => {
    const other = await t.newOrg('Elsewhere');
    const foreign = await readyTemplate(t, { key: other.key });
    const res = await create({ templateId: foreign });
    at('body.templateId')(res);
    at('body.templateId')(await create({ templateId: 'tpl_missing' }));

    const noFile = await createTemplate(t, { fields: [field()] });
    const r1 = await create({ templateId: noFile });
    expect(r1.status).toBe(409);
    expect(r1.body.error.code).toBe('missing_file');

    const noFields = await createTemplate(t, { roles: [{ name: 'A' }] });
    await giveTemplateFile(t, noFields);
    const r2 = await create({ templateId: noFields });
    expect(r2.status).toBe(409);
    expect(r2.body.error.code).toBe('missing_fields');

    // A second role with fields but no fixed signer: nobody could be invited to fill them.
    const unfillable = await createTemplate(t, {
      roles: [{ name: 'A' }, { name: 'B' }],
      fields: [field(), field({ assignedTo: 1 })],
    });
    await giveTemplateFile(t, unfillable);
    const r3 = await create({ templateId: unfillable });
    expect(r3.status).toBe(409);
    expect(r3.body.error.code).toBe('invalid_state');
    expect(r3.body.error.message).toContain('order 1');

    // The visitor's role must have something to fill.
    const nothingForVisitor = await createTemplate(t, {
      roles: [{ name: 'A' }, { name: 'B', signerEmail: 'b@example.test' }],
      fields: [field({ assignedTo: 1 })],
    });
    await giveTemplateFile(t, nothingForVisitor);
    expect((await create({ templateId: nothingForVisitor })).body.error.code).toBe('invalid_state');

    // A field on a page the file does not have (placed before it, or kept from a longer one).
    const offPage = await createTemplate(t, { fields: [field(), field({ page: 3 })] });
    await giveTemplateFile(t, offPage, 2);
    const r4 = await create({ templateId: offPage });
    expect(r4.status).toBe(409);
    expect(r4.body.error.code).toBe('invalid_state');
    expect(r4.body.error.message).toMatch(/is on page 3, but the file has 2 page\(s\)/);
    await giveTemplateFile(t, offPage, 3);
    expect((await create({ templateId: offPage })).status).toBe(201);

    // Fixed later roles are fine.
    const fixed = await createTemplate(t, {
      roles: [{ name: 'A' }, { name: 'B', signerEmail: 'b@example.test' }],
      fields: [field(), field({ assignedTo: 1 })],
    });
    await giveTemplateFile(t, fixed);
    expect((await create({ templateId: fixed })).status).toBe(201);
  });

  it('keeps a template in use from being deleted', async () => {
    const tpl = await readyTemplate(t);
    const c = await createCampaign(t, { templateId: tpl });
    const res = await t.request('DELETE', `/api/v1/templates/${tpl}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
    expect((await t.request('DELETE', `/api/v1/campaigns/${c.id}`)).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/templates/${tpl}`)).status).toBe(204);
  });
});

describe('GET /api/v1/campaigns', () => {
  it('pages newest first with cursors, filters by status and searches by name', async () => {
    const { key } = await t.newOrg('Pager');
    const tpl = await readyTemplate(t, { key });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        (
          await createCampaign(
            t,
            { templateId: tpl, name: i === 4 ? 'Special 50%_off' : `Campaign ${i}` },
            key,
          )
        ).id,
      );
    await t.request('PATCH', `/api/v1/campaigns/${ids[1]}`, { body: { status: 'paused' }, key });
    await t.request('PATCH', `/api/v1/campaigns/${ids[2]}`, { body: { status: 'closed' }, key });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await t.request(
        'GET',
        `/api/v1/campaigns?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        { key },
      );
      expect(res.status).toBe(200);
      for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
      expect(res.body.meta.count).toBe(res.body.data.length);
      seen.push(...res.body.data.map((c: any) => c.id));
      cursor = res.body.meta.nextCursor;
      expect(res.body.meta.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const paused = await t.request('GET', '/api/v1/campaigns?status=paused', { key });
    expect(paused.body.data.map((c: any) => c.id)).toEqual([ids[1]]);
    const closed = await t.request('GET', '/api/v1/campaigns?status=closed', { key });
    expect(closed.body.data.map((c: any) => c.id)).toEqual([ids[2]]);
    const active = await t.request('GET', '/api/v1/campaigns?status=active&limit=100', { key });
    expect(active.body.data).toHaveLength(5);
    expect((await t.request('GET', '/api/v1/campaigns?status=draft', { key })).status).toBe(400);

    const search = await t.request(
      'GET',
      `/api/v1/campaigns?search=${encodeURIComponent('SPECIAL 50%')}`,
      { key },
    );
    expect(search.body.data.map((c: any) => c.id)).toEqual([ids[4]]);
    expect(
      (await t.request('GET', '/api/v1/campaigns?search=%_', { key })).body.data.map(
        (c: any) => c.id,
      ),
    ).toEqual([ids[4]]);
    expect(
      (await t.request('GET', '/api/v1/campaigns?search=campaign&limit=100', { key })).body.data,
    ).toHaveLength(6);
  });

  it.each([
    ['0', 400],
    ['1', 200],
    ['100', 200],
    ['101', 400],
    ['x', 400],
  ])('limit=%s gives %i', async (limit, status) => {
    expect((await t.request('GET', `/api/v1/campaigns?limit=${limit}`)).status).toBe(status);
  });

  it('refuses cursors of other lists', async () => {
    await createCampaign(t, { templateId });
    await createCampaign(t, { templateId });
    const docs = await t.request('GET', '/api/v1/campaigns?limit=1');
    expect(docs.body.meta.nextCursor).toBeTruthy();
    const foreign = await t.request('GET', `/api/v1/templates?cursor=${docs.body.meta.nextCursor}`);
    expect(foreign.body.error.code).toBe('invalid_cursor');
    expect((await t.request('GET', '/api/v1/campaigns?cursor=abc')).body.error.code).toBe(
      'invalid_cursor',
    );
  });
});

describe('PATCH /api/v1/campaigns/{id}', () => {
  it('edits every create field and answers the full campaign', async () => {
    const c = await createCampaign(t, { templateId });
    const other = await readyTemplate(t);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    t.clock.advance(5);
    const body = {
      templateId: other,
      name: 'Renamed',
      welcomeTitle: 'Hi',
      welcomeMessage: 'Sign here',
      maxSubmissions: 9,
      expiresAt,
      collectPhone: false,
      requireOtp: true,
      requireKyc: true,
      brandColor: '#123456',
      redirectUrl: 'https://example.org/',
      locale: 'he',
    };
    const res = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(FULL_KEYS);
    expect(res.body.data).toMatchObject({
      ...body,
      slug: c.slug,
      status: 'active',
      createdAt: c.createdAt,
    });
    expect(res.body.data.updatedAt > c.createdAt).toBe(true);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data).toEqual(res.body.data);
    const cleared = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { expiresAt: null, redirectUrl: '' },
    });
    expect(cleared.body.data).toMatchObject({ expiresAt: null, redirectUrl: '' });
  });

  it('applies the create rules on both sides of each limit', async () => {
    const c = await createCampaign(t, { templateId });
    const patch = (body: Record<string, unknown>) =>
      t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body });
    expect((await patch({ name: 'x'.repeat(200) })).status).toBe(200);
    expect((await patch({ name: 'x'.repeat(201) })).status).toBe(400);
    expect((await patch({ name: '' })).status).toBe(400);
    expect((await patch({ welcomeTitle: 't'.repeat(200) })).status).toBe(200);
    expect((await patch({ welcomeTitle: 't'.repeat(201) })).status).toBe(400);
    expect((await patch({ welcomeMessage: 'm'.repeat(1000) })).status).toBe(200);
    expect((await patch({ welcomeMessage: 'm'.repeat(1001) })).status).toBe(400);
    expect((await patch({ redirectUrl: `https://e.com/${'a'.repeat(2000 - 14)}` })).status).toBe(
      200,
    );
    expect((await patch({ redirectUrl: `https://e.com/${'a'.repeat(2001 - 14)}` })).status).toBe(
      400,
    );
    expect((await patch({ redirectUrl: 'mailto:a@b.c' })).status).toBe(400);
    expect((await patch({ maxSubmissions: 1 })).status).toBe(200);
    expect((await patch({ maxSubmissions: 0 })).status).toBe(400);
    expect((await patch({ brandColor: '#ABCDEF' })).status).toBe(200);
    expect((await patch({ brandColor: '#ABCDE' })).status).toBe(400);
    expect((await patch({ expiresAt: new Date(Date.now() - 1).toISOString() })).status).toBe(400);
    expect((await patch({ status: 'archived' })).status).toBe(400);
    expect((await patch({ templateId: 'tpl_nope' })).status).toBe(400);
  });

  it('refuses slug and other read-only fields, and empty bodies', async () => {
    const c = await createCampaign(t, { templateId });
    for (const body of [
      { slug: 'my-slug' },
      { submissionCount: 0 },
      { id: 'cmp_x' },
      { createdAt: new Date().toISOString() },
      {},
    ]) {
      const res = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    const slug = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { slug: 'my-slug' },
    });
    expect(slug.body.error.details[0].path).toBe('body.slug');
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data.slug).toBe(c.slug);
  });

  it('moves between the three statuses; closing emits campaign.closed once', async () => {
    const c = await createCampaign(t, { templateId });
    const set = (status: string) =>
      t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { status } });
    expect((await set('paused')).body.data.status).toBe('paused');
    expect((await set('active')).body.data.status).toBe('active');
    expect((await set('closed')).body.data.status).toBe('closed');
    expect((await set('closed')).body.data.status).toBe('closed');
    expect((await set('active')).body.data.status).toBe('active');
    const closedEvents = (await eventsOf(t, 'campaign.closed')).filter(
      (e) => e.campaign.id === c.id,
    );
    expect(closedEvents).toHaveLength(1);
    expect(closedEvents[0]).toMatchObject({
      reason: 'manual',
      campaign: { id: c.id, status: 'closed', slug: c.slug },
    });
  });
});

describe('DELETE /api/v1/campaigns/{id} and submissions', () => {
  it('deletes for good; submissions stay as documents carrying the campaign id', async () => {
    const c = await createCampaign(t, { templateId });
    // Documents recorded as the campaign's submissions (the public flow is tested in submissions.test.ts).
    const docs = [
      await createDocument(t, {
        name: 'Sub 1',
        signers: [{ name: 'Ann', email: 'ann@example.test' }],
      }),
      await createDocument(t, { name: 'Sub 2' }),
    ];
    await t.database.handle.db
      .updateTable('documents')
      .set({ campaign_id: c.id, template_id: templateId })
      .where('id', 'in', docs)
      .execute();

    const subs = await t.request('GET', `/api/v1/campaigns/${c.id}/submissions?limit=1`);
    expect(subs.status).toBe(200);
    expect(subs.body.data).toHaveLength(1);
    expect(Object.keys(subs.body.data[0]).sort()).toEqual([
      'completedAt',
      'createdAt',
      'id',
      'name',
      'signers',
      'status',
    ]);
    expect(subs.body.data[0]).toMatchObject({
      id: docs[1],
      name: 'Sub 2',
      status: 'draft',
      completedAt: null,
      signers: [],
    });
    const next = await t.request(
      'GET',
      `/api/v1/campaigns/${c.id}/submissions?limit=1&cursor=${subs.body.meta.nextCursor}`,
    );
    expect(next.body.data[0].id).toBe(docs[0]);
    expect(next.body.data[0].signers).toEqual([
      {
        id: expect.stringMatching(/^sgn_/),
        name: 'Ann',
        email: 'ann@example.test',
        status: 'pending',
        signedAt: null,
      },
    ]);
    expect(next.body.meta).toEqual({ count: 1, hasMore: false, nextCursor: null });

    const del = await t.request('DELETE', `/api/v1/campaigns/${c.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).status).toBe(404);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/campaigns/${c.id}`)).status).toBe(404);
    const doc = await t.request('GET', `/api/v1/documents/${docs[0]}`);
    expect(doc.status).toBe(200);
    expect(doc.body.data.campaignId).toBe(c.id);
  });
});
