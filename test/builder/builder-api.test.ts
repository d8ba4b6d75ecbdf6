import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';
import { giveFileDirectly, readyDocument } from '../signers/setup.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';

/*
 * Builder links and the builder's API (README "The builder"): a link per draft document or
 * template, the view under its token, and the save that makes the fields exactly what the page
 * holds, through the fields API's rules, audited.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const tokenOf = (url: string) => url.split('/build/')[1];

async function docLink(id: string): Promise<string> {
  const res = await t.request('POST', `/api/v1/documents/${id}/builder-link`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return tokenOf(res.body.data.url);
}

const view = (token: string) => t.request('GET', `/api/v1/build/${token}`, { key: null });
const save = (token: string, fields: unknown[]) =>
  t.request('PUT', `/api/v1/build/${token}/fields`, { key: null, body: { fields } });

async function auditActions(docId: string): Promise<string[]> {
  const res = await t.request('GET', `/api/v1/documents/${docId}/audit?limit=100`);
  return res.body.data.map((a: { action: string }) => a.action);
}

describe('POST /api/v1/documents/{id}/builder-link', () => {
  it('answers a one-hour link under PUBLIC_URL/build/ whose token is stored only hashed', async () => {
    const id = await createDocument(t);
    const res = await t.request('POST', `/api/v1/documents/${id}/builder-link`);
    expect(res.status).toBe(200);
    const { url, expiresAt } = res.body.data;
    expect(url).toMatch(/^http:\/\/localhost:3000\/build\/[A-Za-z0-9_-]{43}$/);
    const left = Date.parse(expiresAt) - t.clock.now().getTime();
    expect(left).toBeGreaterThan(3590_000);
    expect(left).toBeLessThanOrEqual(3600_000);
    const rows = await t.database.handle.db.selectFrom('builder_links').selectAll().execute();
    const token = tokenOf(url);
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    const hash = createHash('sha256').update(token).digest('hex');
    expect(rows.find((r) => r.token_hash === hash)).toMatchObject({
      document_id: id,
      template_id: null,
      org_id: t.orgId,
    });
  });

  it('refuses a sent document (409 invalid_state), another organization’s (404) and a read-only key', async () => {
    const sent = await readyDocument(t, { signers: 1 });
    expect((await t.request('POST', `/api/v1/documents/${sent}/send`)).status).toBe(200);
    const refused = await t.request('POST', `/api/v1/documents/${sent}/builder-link`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
    const other = await t.newOrg('Other');
    const theirs = await createDocument(t, {}, other.key);
    expect((await t.request('POST', `/api/v1/documents/${theirs}/builder-link`)).status).toBe(404);
    const reader = await t.keyWith(['documents.read']);
    const mine = await createDocument(t);
    const res = await t.request('POST', `/api/v1/documents/${mine}/builder-link`, { key: reader });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

describe('the builder API of a document', () => {
  it('shows the signers and fields, and a save keeps, edits, removes and adds fields, audited', async () => {
    const id = await createDocument(t, {
      signers: [signer(1), signer(2)],
      fields: [field({ label: 'Keep' }), field({ type: 'text', label: 'Drop', y: 40 })],
    });
    await giveFileDirectly(t, id, 2);
    const token = await docLink(id);
    const shown = await view(token);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      kind: 'document',
      id,
      name: 'Contract',
      pageCount: 2,
      parties: [
        { order: 0, name: 'Signer 1' },
        { order: 1, name: 'Signer 2' },
      ],
    });
    const [keep] = shown.body.data.fields;
    expect(shown.body.data.fields.map((f: { label: string }) => f.label)).toEqual(['Keep', 'Drop']);
    expect(keep).not.toHaveProperty('value');

    const before = await auditActions(id);
    const res = await save(token, [
      { ...keep, x: 55, assignedTo: 1 },
      field({ type: 'dropdown', page: 2, options: ['A', 'B'], label: 'Pick' }),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({ id: keep.id, x: 55, assignedTo: 1, label: 'Keep' });
    expect(res.body.data[1]).toMatchObject({ type: 'dropdown', page: 2, options: ['A', 'B'] });

    const fields = await t.request('GET', `/api/v1/documents/${id}/fields`);
    expect(fields.body.data.map((f: { label: string }) => f.label)).toEqual(['Keep', 'Pick']);
    expect((await auditActions(id)).slice(before.length).sort()).toEqual([
      'field.added',
      'field.removed',
      'field.updated',
    ]);
    const audit = await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`);
    const updated = audit.body.data.find((a: { action: string }) => a.action === 'field.updated');
    expect(updated.details).toContain('changed assignedTo, x');

    // Saving the same fields again changes nothing and writes nothing.
    const again = await save(token, res.body.data);
    expect(again.status).toBe(200);
    expect((await auditActions(id)).length).toBe(before.length + 3);
  });

  it('refuses what the fields API refuses, with a detail per field, and changes nothing', async () => {
    const id = await createDocument(t, { signers: [signer(1)], fields: [field()] });
    await giveFileDirectly(t, id, 1);
    const token = await docLink(id);
    const cases: [unknown[], string][] = [
      [[field(), field({ x: 90, width: 20 })], 'body.fields.1.width'],
      [[field({ type: 'radio' })], 'body.fields.0.options'],
      [[field({ page: 2 })], 'body.fields.0.page'],
      [[{ ...field(), id: 'fld_nope' }], 'body.fields.0.id'],
    ];
    for (const [fields, path] of cases) {
      const res = await save(token, fields);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const tooMany = await save(
      token,
      Array.from({ length: 501 }, () => field({ width: 1, height: 1 })),
    );
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error.code).toBe('limit_reached');
    expect((await t.request('GET', `/api/v1/documents/${id}/fields`)).body.data).toHaveLength(1);
  });

  it('works with every live link, stops at the hour and once the document is sent', async () => {
    const id = await readyDocument(t, { signers: 1 });
    const first = await docLink(id);
    const second = await docLink(id);
    expect((await view(first)).status).toBe(200);
    expect((await view(second)).status).toBe(200);
    expect((await view('x'.repeat(43))).status).toBe(403);

    const { fields } = (await view(first)).body.data;
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    const late = await save(first, fields);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_state');
    expect((await view(second)).body.error.code).toBe('invalid_state');

    const draft = await createDocument(t);
    const token = await docLink(draft);
    t.clock.advance(3600_000);
    const expired = await view(token);
    expect(expired.status).toBe(403);
    expect(expired.body.error.code).toBe('forbidden');
    expect((await save(token, [])).status).toBe(403);
  });
});

describe('the builder of a template', () => {
  it('shows the roles and the file, and saves the template’s fields', async () => {
    const id = await createTemplate(t, {
      roles: [{ name: 'Tenant' }, { name: 'Landlord' }],
      fields: [field({ label: 'Tenant signs' })],
    });
    const pdf = await giveTemplateFile(t, id, 1);
    const link = await t.request('POST', `/api/v1/templates/${id}/builder-link`);
    expect(link.status).toBe(200);
    const token = tokenOf(link.body.data.url);
    const shown = await view(token);
    expect(shown.body.data).toMatchObject({
      kind: 'template',
      id,
      pageCount: 1,
      parties: [
        { order: 0, name: 'Tenant' },
        { order: 1, name: 'Landlord' },
      ],
    });
    const file = await t.request('GET', `/api/v1/build/${token}/file`, { key: null });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(file.raw.rawPayload, pdf)).toBe(0);

    const res = await save(token, [field({ assignedTo: 1, label: 'Landlord signs' })]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const fields = await t.request('GET', `/api/v1/templates/${id}/fields`);
    expect(fields.body.data).toMatchObject([{ label: 'Landlord signs', assignedTo: 1 }]);

    // A deleted template takes its links with it.
    expect((await t.request('DELETE', `/api/v1/templates/${id}`)).status).toBe(204);
    expect((await view(token)).status).toBe(403);
    const left = await t.database.handle.db
      .selectFrom('builder_links')
      .select('token_hash')
      .where('template_id', '=', id)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('GET /build/{token}', () => {
  it('serves the page framed only by the organization’s sites; 404 unknown, 410 expired', async () => {
    const token = await docLink(await createDocument(t));
    const page = await t.request('GET', `/build/${token}?lang=ar`, { key: null });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="ar" dir="rtl">');
    expect(page.body).toContain('builder.js');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect((await t.request('GET', '/build/nope-nope-nope', { key: null })).status).toBe(404);
    t.clock.advance(3600_000);
    const gone = await t.request('GET', `/build/${token}`, { key: null });
    expect(gone.status).toBe(410);
    expect(gone.body).not.toContain('builder.js');
  });
});
