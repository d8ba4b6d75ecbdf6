import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { bulkTemplate } from './setup.ts';

let t: TestApp;
let tpl: string;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await bulkTemplate(t);
});
afterAll(async () => t.close());

const NAMES = [
  'Zoë Łukasiewicz',
  'José Núñez',
  '山田 太郎',
  'Ангелина Петрова',
  'Søren Kierkegård',
];
const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** 1,000 rows: quoted commas, quotes and newlines inside quotes, non-ASCII names, a BOM, CRLF line ends. */
function csv(rows = 1000, bad?: number): string {
  const lines = ['Client name,Client email,Document name,Company,Reference'];
  for (let i = 0; i < rows; i++) {
    const name = `${NAMES[i % NAMES.length]} ${i}`;
    const email = i === bad ? 'broken-address' : `client${i}@example.test`;
    lines.push(
      [
        quote(name),
        email,
        quote(`Offer ${i}, "final"\nsecond line`),
        quote(`Acme, Inc. ${i}`),
        `R-${i}`,
      ].join(','),
    );
  }
  return '\uFEFF' + lines.join('\r\n') + '\r\n';
}

const post = (body: string, query = `templateId=${tpl}&name=CSV%20offers`) =>
  t.request('POST', `/api/v1/bulk-sends?${query}`, {
    body,
    headers: { 'content-type': 'text/csv; charset=utf-8' },
  });

describe('POST /api/v1/bulk-sends (text/csv)', () => {
  it('accepts 1,000 rows with RFC 4180 quoting, a BOM and non-ASCII names, and sends each exactly once', async () => {
    const res = await post(csv());
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ name: 'CSV offers', total: 1000, status: 'queued' });
    await t.drainJobs();
    const id = res.body.data.id;
    expect((await t.request('GET', `/api/v1/bulk-sends/${id}`)).body.data).toMatchObject({
      status: 'completed',
      sent: 1000,
      failed: 0,
    });
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.request(
        'GET',
        `/api/v1/documents?bulkSendId=${id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      names.push(...page.body.data.map((d: any) => d.name));
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    expect(names).toHaveLength(1000);
    expect(new Set(names).size).toBe(1000);
    expect(names).toContain('Offer 7, "final"\nsecond line');
    const rows = await t.database.handle.db
      .selectFrom('signers')
      .innerJoin('documents', 'documents.id', 'signers.document_id')
      .select(['signers.name', 'signers.email'])
      .where('documents.bulk_send_id', '=', id)
      .where('signers.position', '=', 0)
      .execute();
    const byEmail = new Map(rows.map((r) => [r.email, r.name]));
    expect(byEmail.get('client2@example.test')).toBe('山田 太郎 2');
    expect(byEmail.get('client0@example.test')).toBe('Zoë Łukasiewicz 0');
    const doc = names.indexOf('Offer 3, "final"\nsecond line');
    expect(doc).toBeGreaterThanOrEqual(0);
  });

  it('one bad row among 1,000 answers 400 naming it, and creates nothing', async () => {
    const countDocs = async () =>
      Number(
        (await t.database.handle.db
          .selectFrom('documents')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst())!.n,
      );
    const countSends = async () =>
      Number(
        (await t.database.handle.db
          .selectFrom('bulk_sends')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst())!.n,
      );
    const [docs, sends] = [await countDocs(), await countSends()];
    const res = await post(csv(1000, 417));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'row 418', message: expect.stringMatching(/email/) },
    ]);
    await t.drainJobs();
    expect(await countDocs()).toBe(docs);
    expect(await countSends()).toBe(sends);
  });

  it('refuses unknown columns, a missing role column, malformed CSV, and a missing templateId', async () => {
    const unknown = await post('Client name,Client email,Shoe size\nA,a@example.test,42\n');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ path: 'header column 3' });
    const noEmail = await post('Client name\nA\n');
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.details[0].path).toBe('row 1');
    const ragged = await post('Client name,Client email\n"A,a@example.test\n');
    expect(ragged.status).toBe(400);
    expect(
      (await post('Client name,Client email\nA,a@example.test\n', 'name=x')).body.error.details[0]
        .path,
    ).toBe('query.templateId');
    const fixed = await post('Witness name,Witness email\nA,a@example.test\n');
    expect(fixed.status).toBe(400);
  });

  it('answers 413 past 16 MB without reading on', async () => {
    const row = `A,a@example.test,${'x'.repeat(1000)}\n`;
    const big =
      'Client name,Client email,Company\n' +
      row.repeat(Math.ceil((16 * 1024 * 1024) / row.length) + 10);
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});
