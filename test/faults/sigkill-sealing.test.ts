import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { waitFor } from '../webhooks/support.ts';
import { bootstrapKey, onServer } from './flow.ts';

/*
 * SIGKILL while the signed PDF is being produced: after a restart the document completes once,
 * with one signed file, one document.completed event and one set of completion mails.
 */

let db: TestDatabase;
let sink: SmtpSink;
const servers: ChildServer[] = [];
afterAll(async () => {
  for (const s of servers)
    if (s.process.exitCode === null) await terminate(s).catch(() => s.process.kill('SIGKILL'));
  await sink?.close();
  await db?.drop();
});

describe('SIGKILL during sealing', () => {
  it('completes once after a restart: one signed file, one event, one set of mails', {
    timeout: 150_000,
  }, async () => {
    db = await createTestDatabase({ migrated: false });
    sink = await SmtpSink.start();
    const env = childEnv({
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.url,
      PUBLIC_URL: 'http://localhost:3000',
      SMTP_URL: sink.url,
    });
    const first = await serve(env);
    servers.push(first);
    const key = bootstrapKey(first);

    const created = await api(first, key, 'POST', '/api/v1/documents', {
      name: 'Killed while sealing',
      signers: [{ name: 'Ada', email: 'ada@example.test' }],
      fields: [field({ assignedTo: 0, required: true })],
    });
    const id = created.body.data.id as string;
    const ticket = (
      await api(first, key, 'POST', `/api/v1/documents/${id}/upload`, {
        contentType: 'application/pdf',
      })
    ).body.data;
    // Many pages, so that sealing takes long enough for the kill to land inside it.
    const put = await fetch(onServer(first, ticket.uploadUrl), {
      method: 'PUT',
      headers: ticket.headers,
      body: new Uint8Array(await samplePdf(300)),
    });
    expect(put.status).toBe(200);
    expect((await api(first, key, 'POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    const signerId = (await api(first, key, 'GET', `/api/v1/documents/${id}`)).body.data.signers[0]
      .id;
    const token = (
      await api(first, key, 'POST', `/api/v1/documents/${id}/signers/${signerId}/link`)
    ).body.data.url.split('/sign/')[1];
    expect(
      (
        await api(first, null, 'POST', `/api/v1/signing/${token}/complete`, {
          values: {},
          signature: { kind: 'typed', value: 'Ada' },
        })
      ).status,
    ).toBe(200);

    // Kill as soon as the finalize job is claimed (leased), i.e. while it runs.
    const jobs = () =>
      db.handle.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', 'finalize')
        .execute();
    await waitFor(
      async () => (await jobs()).some((j) => j.status === 'running'),
      'the sealing job to start',
      20_000,
      5,
    );
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const doc = await db.handle.db
      .selectFrom('documents')
      .select(['status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(doc.status).toBe('pending');

    const second = await serve(env);
    servers.push(second);
    // The dead run's lease has to run out before another run takes the job.
    const completed = await waitFor(
      async () => {
        const d = (await api(second, key, 'GET', `/api/v1/documents/${id}`)).body.data;
        return d.status === 'completed' ? d : null;
      },
      'completion after the restart',
      120_000,
      250,
    );
    expect(completed.signedFileHash).toMatch(/^[0-9a-f]{64}$/);
    await sink.waitFor(
      (m) => m.to.includes('ada@example.test') && /signed by everyone/i.test(m.subject),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1500));

    const signedFiles = (await readdir(path.join(db.dataDir, 'files', 'documents', id))).filter(
      (f) => f.startsWith('signed-') && f.endsWith('.pdf'),
    );
    expect(signedFiles).toEqual([`signed-${completed.signedFileHash}.pdf`]);
    const events = await db.handle.db
      .selectFrom('events')
      .select('id')
      .where('type', '=', 'document.completed')
      .where('data', 'like', `%${id}%`)
      .execute();
    expect(events).toHaveLength(1);
    expect(
      sink.to('ada@example.test').filter((m) => /signed by everyone/i.test(m.subject)),
    ).toHaveLength(1);
  });
});
