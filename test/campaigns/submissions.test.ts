import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type MemoryMailer, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile, readyTemplate } from '../templates/setup.ts';
import { createCampaign, eventsOf } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const pub = (slug: string, rest = '') => `/api/v1/public/campaigns/${slug}${rest}`;
const mails = () => (t.mailer as MemoryMailer).sent;
const visitor = (n: number | string, extra: Record<string, unknown> = {}) => ({
  name: `Visitor ${n}`,
  email: `visitor${n}@example.test`,
  phone: '+1 555 0100',
  signature: { kind: 'typed', value: `Visitor ${n}` },
  ...extra,
});
const submit = (slug: string, body: unknown) =>
  t.request('POST', pub(slug, '/submissions'), { body, key: null });

describe('public campaign API', () => {
  it('is documented as key-less under its own tag; the page itself is not in the API reference', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    const ops = [
      ['get', '/api/v1/public/campaigns/{slug}'],
      ['get', '/api/v1/public/campaigns/{slug}/file'],
      ['post', '/api/v1/public/campaigns/{slug}/otp'],
      ['post', '/api/v1/public/campaigns/{slug}/submissions'],
    ];
    for (const [method, path] of ops) {
      const op = spec.paths[path]?.[method];
      expect(op, path).toBeDefined();
      expect(op.security, path).toEqual([]);
      expect(op.tags, path).toEqual(['Public campaigns']);
      expect(op.operationId, path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(Object.keys(op.responses), path).toEqual(
        expect.arrayContaining(['404', '409', '429', '500']),
      );
    }
    expect(Object.keys(spec.paths).filter((p) => p.startsWith('/c/'))).toEqual([]);
  });
});

describe('GET /api/v1/public/campaigns/{slug}', () => {
  it("shows the campaign's page data without an API key: the visitor's fields only", async () => {
    const tpl = await createTemplate(t, {
      name: 'Membership form',
      roles: [
        { name: 'Member' },
        { name: 'Secretary', signerName: 'Sue', signerEmail: 'sue@example.test' },
      ],
      fields: [
        field({ label: 'Sign here' }),
        field({ type: 'text', label: 'City', y: 30 }),
        field({ assignedTo: 1, y: 60 }),
      ],
    });
    await giveTemplateFile(t, tpl, 2);
    const c = await createCampaign(t, {
      templateId: tpl,
      name: 'Join us',
      welcomeTitle: 'Welcome!',
      welcomeMessage: 'Fill in and sign.',
      brandColor: '#112233',
    });
    const res = await t.request('GET', pub(c.slug), { key: null });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      slug: c.slug,
      name: 'Join us',
      status: 'active',
      welcomeTitle: 'Welcome!',
      welcomeMessage: 'Fill in and sign.',
      brandColor: '#112233',
      senderName: 'Acme',
      collectPhone: true,
      requireOtp: false,
      requireKyc: false,
      expiresAt: null,
      document: { name: 'Membership form', pageCount: 2 },
      role: { name: 'Member' },
    });
    expect(d.fields.map((f: any) => f.label)).toEqual(['Sign here', 'City']);
    expect(JSON.stringify(d)).not.toContain('sue@example.test');

    const file = await t.request('GET', pub(c.slug, '/file'), { key: null });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.raw.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers 404 for unknown slugs, 400 for malformed ones, and 409 with the reason when the campaign takes nothing', async () => {
    expect((await t.request('GET', pub('no-such-campaign-abc123'), { key: null })).status).toBe(
      404,
    );
    expect((await t.request('GET', pub('Bad_Slug!'), { key: null })).status).toBe(400);
    const c = await createCampaign(t);
    for (const [status, code, reason] of [
      ['paused', 'invalid_state', 'paused'],
      ['closed', 'invalid_state', 'closed'],
    ]) {
      await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { status } });
      for (const path of ['', '/file']) {
        const res = await t.request('GET', pub(c.slug, path), { key: null });
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe(code);
        expect(res.body.error.details).toEqual([{ reason }]);
      }
      const sub = await submit(c.slug, visitor('x'));
      expect(sub.status).toBe(409);
      expect(sub.body.error.details).toEqual([{ reason }]);
    }
    await t.request('DELETE', `/api/v1/campaigns/${c.id}`);
    expect((await t.request('GET', pub(c.slug), { key: null })).status).toBe(404);
  });

  it("takes nothing once its template's file is replaced by one without a field's page (409, without the template's details)", async () => {
    const tpl = await createTemplate(t, {
      fields: [field(), field({ page: 2, type: 'text', label: 'Page two' })],
    });
    await giveTemplateFile(t, tpl, 2);
    const c = await createCampaign(t, { templateId: tpl });
    expect((await t.request('GET', pub(c.slug), { key: null })).status).toBe(200);
    await giveTemplateFile(t, tpl, 1);
    const res = await t.request('GET', pub(c.slug), { key: null });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
    expect(res.body.error.message).not.toContain('page');
    expect((await submit(c.slug, visitor('short'))).status).toBe(409);
  });
});

describe('POST /api/v1/public/campaigns/{slug}/submissions', () => {
  it('creates a document signed by the visitor through the completion path, which the finalize job completes', async () => {
    const tpl = await readyTemplate(t);
    const c = await createCampaign(t, {
      templateId: tpl,
      name: 'Waiver',
      redirectUrl: 'https://example.com/thanks',
    });
    const page = (await t.request('GET', pub(c.slug), { key: null })).body.data;
    const city = page.fields.find((f: any) => f.label === 'City');
    const res = await submit(c.slug, visitor(1, { values: { [city.id]: 'Lisbon' } }));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^doc_/),
      status: 'pending',
      allSigned: true,
      redirectUrl: 'https://example.com/thanks',
      signingUrl: '',
    });
    const id = res.body.data.id;

    const doc = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
    expect(doc).toMatchObject({
      name: 'Waiver: Visitor 1',
      campaignId: c.id,
      templateId: tpl,
      status: 'pending',
      signingType: 'sequential',
    });
    expect(doc.signers).toEqual([
      expect.objectContaining({
        name: 'Visitor 1',
        email: 'visitor1@example.test',
        phone: '+1 555 0100',
        order: 0,
        status: 'completed',
        signedAt: expect.any(String),
      }),
    ]);
    expect(doc.fields.map((f: any) => [f.label, f.value])).toEqual([
      ['Signature', 'Visitor 1'],
      ['City', 'Lisbon'],
    ]);
    const campaign = (await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data;
    expect(campaign.submissionCount).toBe(1);

    const created = (await eventsOf(t, 'campaign.submission.created')).filter((e) => e.id === id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      id,
      campaignId: c.id,
      templateId: tpl,
      campaign: { id: c.id, submissionCount: 1 },
    });
    expect((await eventsOf(t, 'signer.completed')).some((e) => e.id === id)).toBe(true);

    await t.drainJobs();
    const done = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
    expect(done.status).toBe('completed');
    expect(done.signedFileHash).toMatch(/^[0-9a-f]{64}$/);
    const signed = await t.request('GET', `/api/v1/documents/${id}/download`);
    expect(signed.status).toBe(200);
    expect(signed.raw.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const audit = (await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`)).body.data.map(
      (a: any) => a.action,
    );
    expect(audit).toEqual(
      expect.arrayContaining([
        'document.created',
        'document.sent',
        'signer.completed',
        'document.completed',
      ]),
    );
    expect(
      mails().some((m) => m.to === 'visitor1@example.test' && /signed by everyone/.test(m.subject)),
    ).toBe(true);

    const subs = (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data;
    expect(subs).toEqual([
      {
        id,
        name: 'Waiver: Visitor 1',
        status: 'completed',
        completedAt: done.completedAt,
        createdAt: doc.createdAt,
        signers: [
          {
            id: doc.signers[0].id,
            name: 'Visitor 1',
            email: 'visitor1@example.test',
            status: 'completed',
            signedAt: doc.signers[0].signedAt,
          },
        ],
      },
    ]);
  });

  it('invites the fixed signers of later roles by email, in turn', async () => {
    const tpl = await createTemplate(t, {
      roles: [
        { name: 'Applicant' },
        { name: 'Manager', signerName: 'Mia Manager', signerEmail: 'mia@example.test' },
      ],
      fields: [field(), field({ assignedTo: 1, y: 60 })],
    });
    await giveTemplateFile(t, tpl);
    const c = await createCampaign(t, { templateId: tpl, collectPhone: false });
    const res = await submit(c.slug, {
      name: 'Ann',
      email: 'ann@example.test',
      signature: { kind: 'typed', value: 'Ann' },
    });
    expect(res.status).toBe(201);
    const doc = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    expect(doc.signers.map((s: any) => [s.name, s.order, s.status])).toEqual([
      ['Ann', 0, 'completed'],
      ['Mia Manager', 1, 'sent'],
    ]);
    await t.drainJobs();
    const invite = mails().find((m) => m.to === 'mia@example.test');
    expect(invite?.text).toMatch(/\/sign\/[A-Za-z0-9_-]+/);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'pending',
    );
  });

  it('applies the signing rules and the campaign rules before taking a slot', async () => {
    const c = await createCampaign(t, { maxSubmissions: 5 });
    const page = (await t.request('GET', pub(c.slug), { key: null })).body.data;
    const noPhone = await submit(c.slug, visitor(2, { phone: undefined }));
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.error.details[0].path).toBe('body.phone');
    const noSignature = await submit(c.slug, visitor(2, { signature: undefined }));
    expect(noSignature.status).toBe(400);
    expect(noSignature.body.error.details[0].path).toBe('body.signature');
    const stranger = await submit(c.slug, visitor(2, { values: { fld_unknown: 'x' } }));
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.details[0].path).toBe('body.values.fld_unknown');
    const tooLong = await submit(
      c.slug,
      visitor(2, { values: { [page.fields[1].id]: 'x'.repeat(10_001) } }),
    );
    expect(tooLong.status).toBe(400);
    for (const bad of [
      { email: 'nope' },
      { name: '' },
      { name: 'n'.repeat(201) },
      { phone: 'abc' },
      { extra: 1 },
    ]) {
      expect((await submit(c.slug, visitor(2, bad))).status).toBe(400);
    }
    expect((await submit(c.slug, visitor(2, { name: 'n'.repeat(200) }))).status).toBe(201);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data.submissionCount).toBe(1);
  });

  it('closes at maxSubmissions: the last slot closes it once, later submissions get 409 limit_reached', async () => {
    const c = await createCampaign(t, { maxSubmissions: 2, collectPhone: false });
    expect((await submit(c.slug, visitor('a'))).status).toBe(201);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data).toMatchObject({
      status: 'active',
      submissionCount: 1,
    });
    expect((await submit(c.slug, visitor('b'))).status).toBe(201);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data).toMatchObject({
      status: 'closed',
      submissionCount: 2,
    });
    const late = await submit(c.slug, visitor('c'));
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'limit_reached', details: [{ reason: 'full' }] });
    const closed = (await eventsOf(t, 'campaign.closed')).filter((e) => e.campaign.id === c.id);
    expect(closed).toEqual([
      expect.objectContaining({
        reason: 'max_submissions',
        campaign: expect.objectContaining({ status: 'closed', submissionCount: 2 }),
      }),
    ]);
    // Reopening needs more room first.
    const reopen = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { status: 'active' },
    });
    expect(reopen.status).toBe(409);
    expect(reopen.body.error.code).toBe('limit_reached');
    expect(
      (await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { maxSubmissions: 1 } }))
        .status,
    ).toBe(400);
    const more = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { status: 'active', maxSubmissions: 3 },
    });
    expect(more.body.data).toMatchObject({ status: 'active', maxSubmissions: 3 });
    expect((await submit(c.slug, visitor('d'))).status).toBe(201);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data.status).toBe('closed');
  });

  it('lowering maxSubmissions to the count closes an active campaign', async () => {
    const c = await createCampaign(t, { maxSubmissions: 5, collectPhone: false });
    expect((await submit(c.slug, visitor('m'))).status).toBe(201);
    const res = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { maxSubmissions: 1 },
    });
    expect(res.body.data).toMatchObject({
      status: 'closed',
      maxSubmissions: 1,
      submissionCount: 1,
    });
    expect(
      (await eventsOf(t, 'campaign.closed'))
        .filter((e) => e.campaign.id === c.id)
        .map((e) => e.reason),
    ).toEqual(['max_submissions']);
  });
});

describe('emailed codes (requireOtp)', () => {
  it('needs a code sent to the submitted address; a code works once', async () => {
    const c = await createCampaign(t, { requireOtp: true, collectPhone: false });
    const email = 'otp-visitor@example.test';
    const none = await submit(c.slug, visitor('o', { email }));
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('otp_required');
    const sent = await t.request('POST', pub(c.slug, '/otp'), { body: { email }, key: null });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ sentTo: 'o***@example.test' });
    const again = await t.request('POST', pub(c.slug, '/otp'), { body: { email }, key: null });
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBeTruthy();
    await t.drainJobs();
    const code = /\b(\d{6})\b/.exec(
      mails()
        .filter((m) => m.to === email)
        .at(-1)!.text,
    )![1];
    const wrong = await submit(
      c.slug,
      visitor('o', { email, otp: code === '000000' ? '111111' : '000000' }),
    );
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('invalid_otp');
    // The code belongs to the address it was sent to.
    expect(
      (await submit(c.slug, visitor('o', { email: 'someone-else@example.test', otp: code })))
        .status,
    ).toBe(401);
    const ok = await submit(c.slug, visitor('o', { email: email.toUpperCase(), otp: code }));
    expect(ok.status).toBe(201);
    const reused = await submit(c.slug, visitor('o', { email, otp: code }));
    expect(reused.status).toBe(401);
    const audit = (await t.request('GET', `/api/v1/documents/${ok.body.data.id}/audit`)).body.data;
    expect(audit[0].details).toContain('confirmed with an emailed code');
  });

  it('is refused on campaigns without codes', async () => {
    const c = await createCampaign(t);
    const res = await t.request('POST', pub(c.slug, '/otp'), {
      body: { email: 'a@example.test' },
      key: null,
    });
    expect(res.status).toBe(409);
    expect(
      (await t.request('POST', pub(c.slug, '/otp'), { body: { email: 'bad' }, key: null })).status,
    ).toBe(400);
  });
});

describe('identity verification (requireKyc)', () => {
  it('hands the visitor their signing link instead of taking the signature', async () => {
    const c = await createCampaign(t, { requireKyc: true, collectPhone: false });
    const refused = await submit(c.slug, visitor('k'));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe('body.signature');
    const res = await submit(c.slug, { name: 'Kay', email: 'kay@example.test' });
    expect(res.status).toBe(201);
    expect(res.body.data.signingUrl).toMatch(/^http:\/\/localhost:3000\/sign\/[A-Za-z0-9_-]+$/);
    const token = res.body.data.signingUrl.split('/sign/')[1];
    const session = await t.request('GET', `/api/v1/signing/${token}`, { key: null });
    expect(session.status).toBe(200);
    expect(session.body.data.verification).toEqual({ required: true, status: 'required' });
    const doc = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    expect(doc).toMatchObject({ requireKyc: true, campaignId: c.id, status: 'pending' });
    await t.drainJobs();
    expect(mails().some((m) => m.to === 'kay@example.test' && /\/sign\//.test(m.text))).toBe(true);
  });
});
