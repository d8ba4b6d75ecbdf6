import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/modules/retention/retention.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { bulkTemplate, clientRow } from './setup.ts';

let t: TestApp;
let tpl: string;
const DAY = 24 * 3_600_000;
beforeAll(async () => {
  t = await buildTestApp();
  tpl = await bulkTemplate(t);
});
afterAll(async () => t.close());

const rowsOf = (id: string) =>
  t.app.deps.db
    .selectFrom('bulk_send_rows')
    .select(['position', 'data'])
    .where('bulk_send_id', '=', id)
    .execute();
const bulkSend = async (rows: number) => {
  const res = await t.request('POST', '/api/v1/bulk-sends', {
    body: { templateId: tpl, rows: Array.from({ length: rows }, (_, i) => clientRow(i)) },
  });
  expect(res.status).toBe(202);
  return res.body.data.id as string;
};

describe('retention of bulk send rows', () => {
  it("deletes a finished bulk send's rows 7 days after it finished; the bulk send, its counters and documents stay", async () => {
    const completed = await bulkSend(3);
    await t.drainJobs();
    const cancelled = await bulkSend(2);
    expect(
      (await t.request('POST', `/api/v1/bulk-sends/${cancelled}/cancel`, { body: {} })).status,
    ).toBe(200);
    // Still to be sent (its job has not run): its rows are what the job will read.
    const queued = await bulkSend(2);
    expect(await rowsOf(completed)).toHaveLength(3);
    // The rows hold who it went to.
    expect((await rowsOf(completed))[0].data).toContain('client0@example.test');

    t.clock.advance(6 * DAY);
    expect((await purgeExpired(t.app.deps)).bulkSendRows).toBe(0);
    expect(await rowsOf(completed)).toHaveLength(3);
    expect(await rowsOf(cancelled)).toHaveLength(2);

    t.clock.advance(DAY + 1000);
    expect((await purgeExpired(t.app.deps)).bulkSendRows).toBe(5);
    expect(await rowsOf(completed)).toHaveLength(0);
    expect(await rowsOf(cancelled)).toHaveLength(0);
    expect(await rowsOf(queued)).toHaveLength(2);
    // A second pass finds nothing more.
    expect((await purgeExpired(t.app.deps)).bulkSendRows).toBe(0);

    expect((await t.request('GET', `/api/v1/bulk-sends/${completed}`)).body.data).toMatchObject({
      status: 'completed',
      total: 3,
      sent: 3,
      failed: 0,
    });
    expect((await t.request('GET', `/api/v1/bulk-sends/${cancelled}`)).body.data).toMatchObject({
      status: 'cancelled',
      total: 2,
    });
    expect(
      (await t.request('GET', `/api/v1/documents?bulkSendId=${completed}`)).body.data,
    ).toHaveLength(3);

    // The bulk send still to be sent is sent in full, its rows then kept for 7 days too.
    await t.drainJobs();
    expect((await t.request('GET', `/api/v1/bulk-sends/${queued}`)).body.data).toMatchObject({
      status: 'completed',
      sent: 2,
    });
    expect((await purgeExpired(t.app.deps)).bulkSendRows).toBe(0);
    t.clock.advance(7 * DAY + 1000);
    expect((await purgeExpired(t.app.deps)).bulkSendRows).toBe(2);
  });
});
