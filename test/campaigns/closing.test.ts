import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchedulers } from '../../src/jobs/schedulers.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { dialectName } from '../helpers/database.ts';
import { createCampaign, eventsOf } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const submit = (slug: string, n: number | string) =>
  t.request('POST', `/api/v1/public/campaigns/${slug}/submissions`, {
    body: {
      name: `Visitor ${n}`,
      email: `v${n}@example.test`,
      signature: { kind: 'typed', value: `V ${n}` },
    },
    key: null,
  });

describe(`maxSubmissions under concurrency (${dialectName})`, () => {
  it('50 simultaneous submissions against a limit of 10 make exactly 10 documents', async () => {
    const c = await createCampaign(t, { maxSubmissions: 10, collectPhone: false });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => submit(c.slug, i)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(40);
    for (const r of refused)
      expect(r.body.error, JSON.stringify(r.body)).toMatchObject({
        code: 'limit_reached',
        details: [{ reason: 'full' }],
      });

    const docs = await t.database.handle.db
      .selectFrom('documents')
      .select(['id', 'status'])
      .where('campaign_id', '=', c.id)
      .execute();
    expect(docs).toHaveLength(10);
    expect(new Set(docs.map((d) => d.id))).toEqual(
      new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.id)),
    );
    const campaign = (await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data;
    expect(campaign).toMatchObject({ submissionCount: 10, status: 'closed' });
    expect(
      (await eventsOf(t, 'campaign.closed')).filter((e) => e.campaign.id === c.id),
    ).toHaveLength(1);
    expect(
      (await eventsOf(t, 'campaign.submission.created')).filter((e) => e.campaignId === c.id),
    ).toHaveLength(10);
    // Every accepted visitor signed; no refused one left a signer, field or file behind.
    const signers = await t.database.handle.db
      .selectFrom('signers')
      .innerJoin('documents', 'documents.id', 'signers.document_id')
      .select(['signers.status'])
      .where('documents.campaign_id', '=', c.id)
      .execute();
    expect(signers.map((s) => s.status)).toEqual(Array(10).fill('completed'));
    let page = await t.request('GET', `/api/v1/campaigns/${c.id}/submissions?limit=4`);
    const listed: string[] = [];
    for (;;) {
      listed.push(...page.body.data.map((d: any) => d.id));
      if (!page.body.meta.hasMore) break;
      page = await t.request(
        'GET',
        `/api/v1/campaigns/${c.id}/submissions?limit=4&cursor=${page.body.meta.nextCursor}`,
      );
    }
    expect(listed).toHaveLength(10);
    expect(new Set(listed)).toEqual(new Set(docs.map((d) => d.id)));
  }, 60_000);
});

describe('expiry', () => {
  it('the scheduler sweep closes expired campaigns once and emits campaign.closed', async () => {
    const c = await createCampaign(t, {
      expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
      collectPhone: false,
    });
    const other = await createCampaign(t, {
      expiresAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect((await runSchedulers(t.app.deps)).campaignsClosed).toBe(0);
    t.clock.advance(61_000);
    expect((await runSchedulers(t.app.deps)).campaignsClosed).toBe(1);
    expect((await runSchedulers(t.app.deps)).campaignsClosed).toBe(0);
    const list = (
      await t.request('GET', '/api/v1/campaigns?status=closed&limit=100')
    ).body.data.map((x: any) => x.id);
    expect(list).toContain(c.id);
    expect(list).not.toContain(other.id);
    const events = (await eventsOf(t, 'campaign.closed')).filter((e) => e.campaign.id === c.id);
    expect(events).toEqual([
      expect.objectContaining({
        reason: 'expired',
        campaign: expect.objectContaining({ status: 'closed' }),
      }),
    ]);
    const res = await submit(c.slug, 'late');
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual([{ reason: 'expired' }]);
    // Reopening needs a later expiry.
    const reopen = await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
      body: { status: 'active' },
    });
    expect(reopen.status).toBe(409);
    expect(reopen.body.error.code).toBe('invalid_state');
    const later = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    expect(
      (
        await t.request('PATCH', `/api/v1/campaigns/${c.id}`, {
          body: { status: 'active', expiresAt: later },
        })
      ).body.data.status,
    ).toBe('active');
    expect((await submit(c.slug, 'again')).status).toBe(201);
  });

  it('a read after expiry closes the campaign before the sweep runs', async () => {
    const c = await createCampaign(t, {
      expiresAt: new Date(t.clock.now().getTime() + 1_000).toISOString(),
    });
    t.clock.advance(2_000);
    const page = await t.request('GET', `/api/v1/public/campaigns/${c.slug}`, { key: null });
    expect(page.status).toBe(409);
    expect(page.body.error).toMatchObject({
      code: 'invalid_state',
      details: [{ reason: 'expired' }],
    });
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data.status).toBe('closed');
    expect((await runSchedulers(t.app.deps)).campaignsClosed).toBe(0);
    expect(
      (await eventsOf(t, 'campaign.closed')).filter((e) => e.campaign.id === c.id),
    ).toHaveLength(1);
  });

  it('the API list shows an expired campaign closed, closing it once', async () => {
    const { key } = await t.newOrg('Lister');
    const c = await createCampaign(
      t,
      { expiresAt: new Date(t.clock.now().getTime() + 1_000).toISOString() },
      key,
    );
    t.clock.advance(2_000);
    expect(
      (await t.request('GET', '/api/v1/campaigns', { key })).body.data.map((x: any) => [
        x.id,
        x.status,
      ]),
    ).toEqual([[c.id, 'closed']]);
    expect(
      (await t.request('GET', '/api/v1/campaigns?status=closed', { key })).body.data.map(
        (x: any) => x.id,
      ),
    ).toEqual([c.id]);
    expect(
      (await eventsOf(t, 'campaign.closed')).filter((e) => e.campaign.id === c.id),
    ).toHaveLength(1);
  });

  it('the API get closes an expired campaign too', async () => {
    const c = await createCampaign(t, {
      expiresAt: new Date(t.clock.now().getTime() + 1_000).toISOString(),
    });
    t.clock.advance(2_000);
    expect((await t.request('GET', `/api/v1/campaigns/${c.id}`)).body.data.status).toBe('closed');
    expect(
      (await eventsOf(t, 'campaign.closed'))
        .filter((e) => e.campaign.id === c.id)
        .map((e) => e.reason),
    ).toEqual(['expired']);
  });
});
