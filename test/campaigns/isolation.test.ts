import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/http/auth.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { readyTemplate } from '../templates/setup.ts';
import { createCampaign } from './setup.ts';

/** Scopes and organization isolation on every campaign endpoint. */

interface Ids {
  cmp: string;
  tpl: string;
}
interface Endpoint {
  method: string;
  path: (ids: Ids) => string;
  scope: string;
  body?: (ids: Ids) => unknown;
  collection?: boolean;
}

const cp = (i: Ids) => `/api/v1/campaigns/${i.cmp}`;
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/api/v1/campaigns', scope: 'campaigns.read', collection: true },
  {
    method: 'POST',
    path: () => '/api/v1/campaigns',
    scope: 'campaigns.create',
    body: (i) => ({ templateId: i.tpl, name: 'x' }),
    collection: true,
  },
  { method: 'GET', path: cp, scope: 'campaigns.read' },
  {
    method: 'PATCH',
    path: cp,
    scope: 'campaigns.update',
    body: () => ({ name: 'hijacked', status: 'paused' }),
  },
  { method: 'DELETE', path: cp, scope: 'campaigns.delete' },
  { method: 'GET', path: (i) => `${cp(i)}/submissions`, scope: 'campaigns.read' },
];
const label = (e: Endpoint) => `${e.method} ${e.path({ cmp: '{id}', tpl: '' })}`;

let t: TestApp;
let mine: Ids;
let theirs: Ids;
let theirKey: string;

async function resources(key: string): Promise<Ids> {
  const tpl = await readyTemplate(t, { key });
  const cmp = (await createCampaign(t, { templateId: tpl, name: 'Mine' }, key)).id;
  return { cmp, tpl };
}

beforeAll(async () => {
  t = await buildTestApp();
  theirKey = (await t.newOrg('Other Org')).key;
  mine = await resources(t.key);
  theirs = await resources(theirKey);
});
afterAll(async () => t.close());

describe('campaign endpoints', () => {
  it('are documented with operationId, summary and error responses', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    for (const e of ENDPOINTS) {
      const op = spec.paths[label(e).split(' ')[1]]?.[e.method.toLowerCase()];
      expect(op, label(e)).toBeDefined();
      expect(op.operationId, label(e)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, label(e)).toBeTruthy();
      expect(op.tags, label(e)).toEqual(['Campaigns']);
      expect(Object.keys(op.responses), label(e)).toEqual(
        expect.arrayContaining(['401', '403', '429', '500']),
      );
      if (!e.collection) expect(Object.keys(op.responses), label(e)).toContain('404');
    }
  });

  it('refuse a missing or unknown key (401)', async () => {
    for (const e of ENDPOINTS) {
      for (const key of [null, `sk_${'B'.repeat(43)}`]) {
        const res = await t.request(e.method, e.path(mine), { body: e.body?.(mine), key });
        expect(res.status, label(e)).toBe(401);
        expect(res.body.error.code, label(e)).toBe('unauthorized');
      }
    }
  });

  it('each need their own scope (403 insufficient_scope)', async () => {
    for (const e of ENDPOINTS) {
      const key = await t.keyWith(SCOPES.filter((s) => s !== e.scope));
      const res = await t.request(e.method, e.path(mine), { body: e.body?.(mine), key });
      expect(res.status, label(e)).toBe(403);
      expect(res.body.error.code, label(e)).toBe('insufficient_scope');
      expect(res.body.error.details, label(e)).toEqual([{ requiredScope: e.scope }]);
    }
    expect((await t.request('GET', `/api/v1/campaigns/${mine.cmp}`)).body.data).toMatchObject({
      name: 'Mine',
      status: 'active',
    });
  });

  it("answer 404 for another organization's campaign, and lists never show it", async () => {
    for (const e of ENDPOINTS.filter((x) => !x.collection)) {
      const res = await t.request(e.method, e.path(theirs), { body: e.body?.(theirs) });
      expect(res.status, label(e)).toBe(404);
      expect(res.body.error.code, label(e)).toBe('not_found');
    }
    const list = (await t.request('GET', '/api/v1/campaigns?limit=100')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(list).toEqual([mine.cmp]);
    const searched = (await t.request('GET', '/api/v1/campaigns?search=mine')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(searched).toEqual([mine.cmp]);
    // Their template cannot back my campaign.
    const res = await t.request('POST', '/api/v1/campaigns', {
      body: { templateId: theirs.tpl, name: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('body.templateId');
    expect(
      (
        await t.request('PATCH', `/api/v1/campaigns/${mine.cmp}`, {
          body: { templateId: theirs.tpl },
        })
      ).status,
    ).toBe(400);
    const untouched = (await t.request('GET', `/api/v1/campaigns/${theirs.cmp}`, { key: theirKey }))
      .body.data;
    expect(untouched).toMatchObject({ name: 'Mine', status: 'active' });
  });
});
