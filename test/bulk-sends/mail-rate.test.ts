import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { bulkTemplate, clientRow } from './setup.ts';

let t: TestApp;
let sink: SmtpSink;
const RATE = 20;
/** The mails the pacer lets go at once after a pause: a quarter second's worth (src/jobs/pacer.ts). */
const SAVED = RATE / 4;
beforeAll(async () => {
  sink = await SmtpSink.start();
  // 30 connections: at 20 mails a second and 1 s a mail, 20 are in hand at once.
  t = await buildTestApp({
    env: { SMTP_URL: sink.url, MAIL_RATE_PER_SECOND: String(RATE), MAIL_CONNECTIONS: '30' },
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

/**
 * Sends a bulk send of `rows` rows (a client and a witness invitation each) with the job runner
 * running as a server runs it, and returns when each mail was accepted by the SMTP server, in ms
 * after the runner started.
 */
async function sendAndTime(rows: number, firstClient: number): Promise<number[]> {
  const tpl = await bulkTemplate(t);
  const before = sink.messages.length;
  const body = {
    templateId: tpl,
    rows: Array.from({ length: rows }, (_, i) => clientRow(firstClient + i)),
  };
  expect((await t.request('POST', '/api/v1/bulk-sends', { body })).status).toBe(202);
  const arrivals: number[] = [];
  const start = Date.now();
  t.app.jobs.start();
  try {
    while (sink.messages.length < before + rows * 2 && Date.now() - start < 30_000) {
      const n = sink.messages.length;
      await new Promise((r) => setTimeout(r, 10));
      for (let i = n; i < sink.messages.length; i++) arrivals.push(Date.now() - start);
    }
  } finally {
    await t.app.jobs.stop();
  }
  expect(sink.messages).toHaveLength(before + rows * 2);
  const recipients = new Set(sink.messages.flatMap((m) => m.to));
  for (let i = firstClient; i < firstClient + rows; i++)
    expect(recipients.has(`client${i}@example.test`)).toBe(true);
  return arrivals;
}

/**
 * The rate is never exceeded: by any time after the runner started, no more mails arrived than the
 * pacer allows to begin by then (the saved-up quarter second plus RATE a second; a mail arrives
 * after it began). Within any one second, not much more than the rate either: mails begun at their
 * pace can still arrive bunched when the sending process is busy (here it also creates the
 * documents, and on a loaded machine the event loop stalls), so the bound is three times the rate,
 * which a burst (no pacing: all 80 within a second) still far exceeds.
 */
function expectWithinRate(arrivals: number[]): void {
  arrivals.forEach((at, i) => {
    expect(i + 1).toBeLessThanOrEqual(SAVED + 1 + (RATE * at) / 1000);
  });
  for (const at of arrivals)
    expect(arrivals.filter((x) => x >= at && x < at + 1000).length).toBeLessThanOrEqual(3 * RATE);
}

describe('MAIL_RATE_PER_SECOND', () => {
  it("hands a bulk send's invitations to a real SMTP server at a steady rate", async () => {
    const arrivals = await sendAndTime(40, 0);
    expectWithinRate(arrivals);
    // 80 mails at 20/s: at least (80 - 5 saved up) / 20 = 3.75 s; a burst would take well under 1 s.
    expect(arrivals.at(-1)!).toBeGreaterThanOrEqual(((80 - SAVED - 1) / RATE) * 1000);
  }, 60_000);

  it('keeps to the rate when the SMTP server answers slowly: mail is claimed as tokens come, not batch by batch', async () => {
    // Each mail is accepted 1 s after its data arrived. A runner that claims a batch and waits for
    // all of it sends the quarter second saved up (5 mails) a second: 60 mails in over 11 s after
    // the first. At 20 a second: about 3 s.
    sink.holdMs = 1000;
    try {
      const arrivals = await sendAndTime(30, 100);
      expectWithinRate(arrivals);
      expect(arrivals.at(-1)! - arrivals[0]).toBeLessThan(7000);
    } finally {
      sink.holdMs = 0;
    }
  }, 60_000);
});
