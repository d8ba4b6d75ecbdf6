import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { bulkTemplate, clientRow } from './setup.ts';

let t: TestApp;
let sink: SmtpSink;
const RATE = 20;
beforeAll(async () => {
  sink = await SmtpSink.start();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_RATE_PER_SECOND: String(RATE) } });
});
afterAll(async () => {
  await t.app.deps.jobs.stop();
  await t.close();
  await sink.close();
});

describe('MAIL_RATE_PER_SECOND', () => {
  it("hands a bulk send's invitations to a real SMTP server at a steady rate", async () => {
    const tpl = await bulkTemplate(t);
    const rows = Array.from({ length: 40 }, (_, i) => clientRow(i));
    const res = await t.request('POST', '/api/v1/bulk-sends', { body: { templateId: tpl, rows } });
    expect(res.status).toBe(202);
    const arrivals: number[] = [];
    const start = Date.now();
    t.app.deps.jobs.start();
    // 40 clients and 40 witness invitations.
    while (sink.messages.length < 80 && Date.now() - start < 30_000) {
      const n = sink.messages.length;
      await new Promise((r) => setTimeout(r, 20));
      for (let i = n; i < sink.messages.length; i++) arrivals.push(Date.now());
    }
    expect(sink.messages).toHaveLength(80);
    const first = arrivals[0];
    // 80 mails at 20/s: about 4 s after the first; a burst (no pacing) would take well under 1 s.
    expect(arrivals.at(-1)! - first).toBeGreaterThan(((80 - RATE / 4 - 1) / RATE) * 1000 * 0.9);
    // No one-second window holds much more than the rate (plus the quarter second the bucket saves up).
    for (const at of arrivals) expect(arrivals.filter((x) => x >= at && x < at + 1000).length).toBeLessThanOrEqual(RATE + RATE / 4 + 1);
    const recipients = new Set(sink.messages.flatMap((m) => m.to));
    for (let i = 0; i < 40; i++) expect(recipients.has(`client${i}@example.test`)).toBe(true);
  }, 60_000);
});
