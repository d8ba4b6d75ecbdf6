import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from './setup.ts';

/**
 * `locale` on template roles and bulk-send rows: a role's locale goes to its signers on every
 * document made from the template (a signer's own wins); a bulk-send row gives its document's
 * locale (`locale`) and its signers' (`<role> locale` in CSV, `signers[].locale` in JSON).
 */

let t: TestApp;
let tpl: string;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await createTemplate(t, {
    roles: [
      { name: 'Tenant', locale: 'de-AT' },
      { name: 'Landlord', signerName: 'Lara Lord', signerEmail: 'lara@example.test', locale: 'ar' },
      { name: 'Witness' },
    ],
    fields: [
      field({ label: 'Tenant signs' }),
      field({ assignedTo: 1, y: 40 }),
      field({ assignedTo: 2, y: 60 }),
    ],
  });
  await giveTemplateFile(t, tpl);
});
afterAll(async () => t.close());

const localesOf = async (documentId: string) => {
  const doc = (await t.request('GET', `/api/v1/documents/${documentId}`)).body.data;
  return { document: doc.locale, signers: doc.signers.map((s: any) => [s.order, s.locale]) };
};

describe('template roles take a locale', () => {
  it('is stored matched to a supported locale, shown, changed and cleared', async () => {
    const got = (await t.request('GET', `/api/v1/templates/${tpl}`)).body.data;
    expect(got.roles.map((r: any) => [r.name, r.locale])).toEqual([
      ['Tenant', 'de'],
      ['Landlord', 'ar'],
      ['Witness', null],
    ]);
    const id = await createTemplate(t, { roles: [{ name: 'A' }] });
    const role = (await t.request('GET', `/api/v1/templates/${id}`)).body.data.roles[0];
    const patched = await t.request('PATCH', `/api/v1/templates/${id}/roles/${role.id}`, {
      body: { locale: 'zh-TW' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.locale).toBe('zh-Hant');
    const cleared = await t.request('PATCH', `/api/v1/templates/${id}/roles/${role.id}`, {
      body: { locale: null },
    });
    expect(cleared.body.data.locale).toBeNull();
    const added = await t.request('POST', `/api/v1/templates/${id}/roles`, {
      body: { name: 'B', locale: 'pt-BR' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data.locale).toBe('pt');
  });

  it('refuses a language Signet does not have, naming the supported ones', async () => {
    const bad = await t.request('POST', '/api/v1/templates', {
      body: { name: 'x', roles: [{ name: 'A', locale: 'xx' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details[0].path).toBe('body.roles.0.locale');
    expect(bad.body.error.details[0].message).toContain('de, fr');
  });

  it("gives documents made from the template the role's locale unless the signer has its own", async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Lease',
        templateId: tpl,
        signers: [
          { name: 'Ann', email: 'ann@example.test' },
          { name: 'Walt', email: 'walt@example.test', locale: 'ja' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(await localesOf(res.body.data.id)).toEqual({
      document: null,
      signers: [
        [0, 'de'],
        [1, 'ar'],
        [2, 'ja'],
      ],
    });
    const own = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Lease',
        templateId: tpl,
        signers: [
          { name: 'Ann', email: 'ann@example.test', locale: 'fr' },
          { name: 'Walt', email: 'walt@example.test' },
        ],
      },
    });
    expect((await localesOf(own.body.data.id)).signers).toEqual([
      [0, 'fr'],
      [1, 'ar'],
      [2, null],
    ]);
  });
});

describe('bulk-send rows take a locale', () => {
  const open = (n: number, locale?: string) => [
    {
      role: 'Tenant',
      name: `Tenant ${n}`,
      email: `tenant${n}@example.test`,
      ...(locale ? { locale } : {}),
    },
    { role: 'Witness', name: `Witness ${n}`, email: `witness${n}@example.test` },
  ];

  it('JSON: the row locale is the document locale, a signer locale is the signer locale', async () => {
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: tpl,
        rows: [
          { name: 'one', locale: 'it', signers: open(1, 'he') },
          { name: 'two', signers: open(2) },
        ],
      },
    });
    expect(res.status).toBe(202);
    await t.drainJobs();
    const docs = (await t.request('GET', `/api/v1/documents?bulkSendId=${res.body.data.id}`)).body
      .data;
    const byName = Object.fromEntries(docs.map((d: any) => [d.name, d.id]));
    expect(await localesOf(byName.one)).toEqual({
      document: 'it',
      signers: [
        [0, 'he'],
        [1, 'ar'],
        [2, null],
      ],
    });
    expect(await localesOf(byName.two)).toEqual({
      document: null,
      signers: [
        [0, 'de'],
        [1, 'ar'],
        [2, null],
      ],
    });
  });

  it('JSON: a language Signet does not have is a 400 naming the row, and nothing is created', async () => {
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: tpl,
        rows: [{ signers: open(1) }, { locale: 'klingon', signers: open(2, 'xx') }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.path)).toEqual([
      'rows[1].locale',
      'rows[1].signers[0].locale',
    ]);
  });

  it('CSV: a `locale` column and `<role> locale` columns', async () => {
    const csv = [
      'Tenant name,Tenant email,Tenant locale,Witness name,Witness email,Document name,Locale',
      'Tia,tia@example.test,uk,Will,will@example.test,first,nl',
      'Tom,tom@example.test,,Wes,wes@example.test,second,',
    ].join('\r\n');
    const res = await t.request('POST', `/api/v1/bulk-sends?templateId=${tpl}`, {
      body: csv,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
    });
    expect(res.status).toBe(202);
    await t.drainJobs();
    const docs = (await t.request('GET', `/api/v1/documents?bulkSendId=${res.body.data.id}`)).body
      .data;
    const byName = Object.fromEntries(docs.map((d: any) => [d.name, d.id]));
    expect(await localesOf(byName.first)).toEqual({
      document: 'nl',
      signers: [
        [0, 'uk'],
        [1, 'ar'],
        [2, null],
      ],
    });
    expect((await localesOf(byName.second)).document).toBeNull();
    const bad = await t.request('POST', `/api/v1/bulk-sends?templateId=${tpl}`, {
      body: 'Tenant name,Tenant email,Witness name,Witness email,Locale\r\nT,t@example.test,W,w@example.test,xx\r\n',
      headers: { 'content-type': 'text/csv; charset=utf-8' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ path: 'row 1' });
    expect(bad.body.error.details[0].message).toContain('locale must be a supported locale');
  });
});
