import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkTemplate, clientRow } from '../bulk-sends/setup.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/*
 * Wide bodies: a CSV body has at most 200 columns, counted before any record is built, and no
 * error lists more than 100 `details` (the message says how many more there were), so a bad
 * 16 MB body answers a small error instead of megabytes.
 */

let t: TestApp;
let tpl: string;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await bulkTemplate(t);
});
afterAll(async () => t.close());

const postCsv = (body: string) =>
  t.request('POST', `/api/v1/bulk-sends?templateId=${tpl}&name=Wide`, {
    body,
    headers: { 'content-type': 'text/csv' },
  });

describe('CSV bodies', () => {
  it('refuses a header of 500,000 columns from its first line, with a small error', async () => {
    const header = Array.from({ length: 500_000 }, () => '').join(',');
    const res = await postCsv(`${header}\nx\n`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(/at most 200 columns/);
    expect(res.body.error.details).toEqual([
      { path: 'header', message: 'has more than 200 columns' },
    ]);
    expect(res.raw.body.length).toBeLessThan(2000);
  });

  it('refuses a later line of more than 200 columns, and counts no comma inside quotes', async () => {
    const quoted = `"${','.repeat(500)}"`;
    const wide = Array.from({ length: 201 }, (_, i) => `c${i}`).join(',');
    const res = await postCsv(
      `Client name,Client email,Company\nAda,ada@example.test,${quoted}\n${wide}\n`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'line 3', message: 'has more than 200 columns' },
    ]);
    const ok = await postCsv(`Client name,Client email,Company\nAda,ada@example.test,${quoted}\n`);
    expect(ok.status).toBe(202);
  });
});

describe('error details', () => {
  it('lists at most 100, and says how many more there were', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => clientRow(i, { values: { Nope: 'x' } }));
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Many bad rows', rows },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveLength(100);
    expect(res.body.error.message).toMatch(/200 more problem\(s\) not listed/);
  });

  it('holds for what the request validator finds too', async () => {
    const rows = Array.from({ length: 500 }, () => ({
      signers: [{ role: 'Client', name: '', email: 'bad' }],
    }));
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Invalid rows', rows },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.length).toBeLessThanOrEqual(100);
    expect(res.body.error.message).toMatch(/more problem\(s\) not listed/);
  });
});
