import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { enqueueJob } from '../../src/queue/queue.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('job leases', () => {
  it('renews the lease of a job that runs longer than it, so no other runner claims it meanwhile', async () => {
    const { db, dialect, log } = { db: t.app.deps.db, dialect: t.app.deps.dialect, log: t.app.log };
    const runs: string[] = [];
    const slow = (name: string) => async () => {
      runs.push(name);
      await new Promise((r) => setTimeout(r, 1500));
    };
    // Two instances with a 300 ms lease; the job takes five leases' time.
    const a = new JobRunner(db, dialect, systemClock, log, 20, 300);
    const b = new JobRunner(db, dialect, systemClock, log, 20, 300);
    a.register('finalize', slow('a'));
    b.register('finalize', slow('b'));
    await enqueueJob(db, systemClock, 'finalize', { documentId: 'doc_lease' });
    const first = a.tick();
    while (runs.length === 0) await new Promise((r) => setTimeout(r, 5));
    const until = Date.now() + 1400;
    while (Date.now() < until) {
      await b.tick();
      await new Promise((r) => setTimeout(r, 50));
    }
    await first;
    expect(runs).toEqual(['a']);
    expect(
      await db.selectFrom('jobs').selectAll().where('kind', '=', 'finalize').execute(),
    ).toEqual([]);
  });
});
