import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type MemoryMailer, type TestApp } from '../helpers/build-test-app.ts';
import { bulkTemplate, clientRow } from './setup.ts';

let t: TestApp;
let tpl: string;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await bulkTemplate(t);
});
afterAll(async () => t.close());

const mails = () => (t.mailer as MemoryMailer).sent;

describe('POST /api/v1/bulk-sends (JSON)', () => {
  it('answers 202 with the queued bulk send, then creates and sends one document per row', async () => {
    const before = mails().length;
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: tpl,
        name: 'Spring offers',
        message: 'Please sign',
        rows: [
          clientRow(1, { values: { Company: 'Acme', reference: 'REF-1', Salary: 1000 } }),
          clientRow(2, { name: 'Offer for two' }),
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      name: 'Spring offers',
      templateId: tpl,
      status: 'queued',
      total: 2,
      sent: 0,
      failed: 0,
      completedAt: null,
    });
    expect(res.body.data.id).toMatch(/^bsd_/);
    await t.drainJobs();
    const got = await t.request('GET', `/api/v1/bulk-sends/${res.body.data.id}`);
    expect(got.body.data).toMatchObject({ status: 'completed', total: 2, sent: 2, failed: 0 });
    expect(got.body.data.completedAt).not.toBeNull();
    const docs = await t.request('GET', `/api/v1/documents?bulkSendId=${res.body.data.id}`);
    expect(docs.body.data).toHaveLength(2);
    expect(docs.body.data.map((d: any) => d.name).sort()).toEqual([
      'Offer for two',
      'Spring offers - Client 1',
    ]);
    for (const d of docs.body.data)
      expect(d).toMatchObject({ status: 'pending', bulkSendId: res.body.data.id, templateId: tpl });
    const one = docs.body.data.find((d: any) => d.name === 'Spring offers - Client 1');
    const detail = (await t.request('GET', `/api/v1/documents/${one.id}`)).body.data;
    expect(detail.message).toBe('Please sign');
    const byLabel = Object.fromEntries(detail.fields.map((f: any) => [f.label, f]));
    expect(byLabel.Company.defaultValue).toBe('Acme');
    expect(byLabel.Reference).toMatchObject({ defaultValue: 'REF-1', readOnly: true });
    expect(byLabel.Salary.defaultValue).toBe('1000');
    // Each client and the fixed witness got an invitation.
    const sent = mails()
      .slice(before)
      .map((m) => m.to)
      .sort();
    expect(sent).toEqual([
      'client1@example.test',
      'client2@example.test',
      'wendy@example.test',
      'wendy@example.test',
    ]);
    const all = await t.request('GET', '/api/v1/documents');
    expect(all.body.data.filter((d: any) => d.bulkSendId === null)).toHaveLength(0);
  });

  it('refuses the whole request when one row is bad, naming each bad row, and creates nothing', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => clientRow(i));
    rows[17] = { signers: [{ role: 'Client', name: 'Bad', email: 'not-an-email' }] };
    rows[20] = { signers: [{ role: 'Witness', name: 'W', email: 'w@example.test' }] } as never;
    rows[25] = clientRow(25, { values: { Nope: 'x', Salary: 'abc' } });
    const before = (await t.request('GET', '/api/v1/documents?limit=100')).body.data.length;
    const res = await t.request('POST', '/api/v1/bulk-sends', { body: { templateId: tpl, rows } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const paths = res.body.error.details.map((d: any) => d.path);
    expect(paths).toContain('rows[17].signers[0].email');
    // The schema catches the address first; the rows that pass it are then checked against the template.
    const again = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, rows: rows.map((r, i) => (i === 17 ? clientRow(17) : r)) },
    });
    expect(again.status).toBe(400);
    const semantic = again.body.error.details.map((d: any) => d.path);
    expect(semantic).toEqual(
      expect.arrayContaining([
        'rows[20].signers[0].role',
        'rows[20].signers',
        'rows[25].values["Nope"]',
        'rows[25].values["Salary"]',
      ]),
    );
    await t.drainJobs();
    expect((await t.request('GET', '/api/v1/documents?limit=100')).body.data.length).toBe(before);
    expect((await t.request('GET', '/api/v1/bulk-sends')).body.data).toHaveLength(1);
  });

  it('refuses a template of another organization, too many rows, and query parameters with JSON', async () => {
    const other = await t.newOrg('Other');
    expect(
      (
        await t.request('POST', '/api/v1/bulk-sends', {
          key: other.key,
          body: { templateId: tpl, rows: [clientRow(1)] },
        })
      ).status,
    ).toBe(400);
    const many = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, rows: Array.from({ length: 10_001 }, (_, i) => clientRow(i)) },
    });
    expect(many.status).toBe(400);
    expect(many.body.error.details[0].path).toBe('body.rows');
    const q = await t.request('POST', `/api/v1/bulk-sends?templateId=${tpl}`, {
      body: { templateId: tpl, rows: [clientRow(1)] },
    });
    expect(q.status).toBe(400);
    const scope = await t.keyWith(['documents.read']);
    expect(
      (
        await t.request('POST', '/api/v1/bulk-sends', {
          key: scope,
          body: { templateId: tpl, rows: [clientRow(1)] },
        })
      ).status,
    ).toBe(403);
  });

  it('replays the first answer for the same Idempotency-Key', async () => {
    const body = { templateId: tpl, rows: [clientRow(50)] };
    const headers = { 'idempotency-key': 'bulk-1' };
    const a = await t.request('POST', '/api/v1/bulk-sends', { body, headers });
    const b = await t.request('POST', '/api/v1/bulk-sends', { body, headers });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    await t.drainJobs();
  });
});

describe('POST /api/v1/bulk-sends/{id}/cancel', () => {
  it('stops the rows not sent yet; sent documents stay unless cancelDocuments', async () => {
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, rows: Array.from({ length: 150 }, (_, i) => clientRow(100 + i)) },
    });
    const id = res.body.data.id;
    // One job of 100 rows runs; the second has not started.
    await t.app.jobs.tick(1);
    const mid = (await t.request('GET', `/api/v1/bulk-sends/${id}`)).body.data;
    expect(mid).toMatchObject({ status: 'processing', sent: 100 });
    const cancelled = await t.request('POST', `/api/v1/bulk-sends/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', sent: 100 });
    await t.drainJobs();
    const docs = await t.request('GET', `/api/v1/documents?bulkSendId=${id}&limit=100`);
    expect(docs.body.meta.hasMore).toBe(false);
    expect(docs.body.data).toHaveLength(100);
    expect(docs.body.data.every((d: any) => d.status === 'pending')).toBe(true);
    expect(
      (
        await t.request('POST', `/api/v1/bulk-sends/${id}/cancel`, {
          body: { cancelDocuments: true },
        })
      ).status,
    ).toBe(409);
  });

  it('with cancelDocuments, cancels the documents already sent', async () => {
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, rows: Array.from({ length: 120 }, (_, i) => clientRow(300 + i)) },
    });
    const id = res.body.data.id;
    await t.app.jobs.tick(1);
    const cancelled = await t.request('POST', `/api/v1/bulk-sends/${id}/cancel`, {
      body: { cancelDocuments: true },
    });
    expect(cancelled.status).toBe(200);
    await t.drainJobs();
    const docs = await t.request('GET', `/api/v1/documents?bulkSendId=${id}&limit=100`);
    expect(docs.body.data.length).toBe(100);
    expect(docs.body.data.every((d: any) => d.status === 'cancelled')).toBe(true);
    expect((await t.request('GET', `/api/v1/bulk-sends/${id}`)).body.data).toMatchObject({
      status: 'cancelled',
      sent: 100,
      total: 120,
    });
  });
});

describe('OpenAPI', () => {
  it('documents the bulk-send routes (JSON and CSV bodies), the upload and attachment routes, and bulk_send.completed', async () => {
    const spec = (await t.request('GET', '/openapi.json', { key: null })).body;
    const create = spec.paths['/api/v1/bulk-sends'].post;
    expect(Object.keys(create.requestBody.content).sort()).toEqual([
      'application/json',
      'text/csv',
    ]);
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['202', '400', '409', '413']),
    );
    expect(spec.paths['/api/v1/bulk-sends/{id}/cancel'].post.operationId).toBe('cancelBulkSend');
    expect(spec.paths['/api/v1/signing/{token}/fields/{fieldId}/file'].put.operationId).toBe(
      'uploadSigningFieldFile',
    );
    expect(spec.paths['/api/v1/documents/{id}/attachments/{attachmentId}'].get.operationId).toBe(
      'downloadDocumentAttachment',
    );
    expect(JSON.stringify(spec)).toContain('bulk_send.completed');
  });
});
