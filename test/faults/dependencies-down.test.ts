import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  api,
  childEnv,
  freePort,
  serve,
  terminate,
  type ChildServer,
} from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { waitFor } from '../webhooks/support.ts';
import { bootstrapKey, draftWithTicket, putFile, sendAndSign } from './flow.ts';

/*
 * Dependencies that go away under a real server process: the SMTP relay when the last signer
 * completes, the local storage directory. Signet keeps working where it can, answers 503 with a
 * clear code where it cannot, /readyz says which dependency is down, and everything resumes when
 * it returns, without a restart.
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function start(
  env: Record<string, string>,
): Promise<{ server: ChildServer; db: TestDatabase; key: string }> {
  const db = await createTestDatabase({ migrated: false });
  cleanups.push(() => db.drop());
  const server = await serve(
    childEnv({
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.url,
      PUBLIC_URL: 'http://localhost:3000',
      ...env,
    }),
  );
  cleanups.push(() => terminate(server));
  return { server, db, key: bootstrapKey(server) };
}

const ready = async (server: ChildServer) => {
  const res = await fetch(`${server.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};

describe('SMTP down when the last signer completes', () => {
  it('the document completes and downloads; the mails go out once SMTP is back', {
    timeout: 90_000,
  }, async () => {
    const port = await freePort();
    const { server, key } = await start({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const { id, ticket } = await draftWithTicket(server, key, 'ada@example.test');
    expect((await putFile(server, ticket)).status).toBe(200);
    await sendAndSign(server, key, id);

    const completed = await waitFor(
      async () => {
        const d = (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data;
        return d.status === 'completed' ? d : null;
      },
      'completion without SMTP',
      30_000,
      100,
    );
    expect(completed.signedFileHash).toMatch(/^[0-9a-f]{64}$/);
    const download = await fetch(`${server.url}/api/v1/documents/${id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(download.status).toBe(200);
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // SMTP comes back where it was: the queued invitation and the signed copy arrive.
    const sink = await SmtpSink.start({ port });
    cleanups.push(() => sink.close());
    const copy = await sink.waitFor(
      (m) => m.to.includes('ada@example.test') && /signed by everyone/i.test(m.subject),
      45_000,
    );
    expect(copy.attachments[0]?.contentType).toBe('application/pdf');
  });
});

describe('local storage unwritable', () => {
  it('uploads answer 503 storage_unavailable, /readyz fails, nothing half-written; both recover', {
    timeout: 60_000,
  }, async () => {
    const { server, db, key } = await start({});
    const files = path.join(db.dataDir, 'files');
    const { id, ticket } = await draftWithTicket(server, key);
    expect((await ready(server)).status).toBe(200);

    // The storage directory is replaced by a plain file (the tests may run as root, for whom a
    // read-only mode bit changes nothing): no write under it can succeed.
    await mkdir(files, { recursive: true });
    await rename(files, `${files}.away`);
    await writeFile(files, 'not a directory');

    const refused = await putFile(server, ticket);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('storage_unavailable');
    const probe = await ready(server);
    expect(probe.status).toBe(503);
    expect(probe.body).toMatchObject({
      status: 'unavailable',
      storage: 'unreachable',
      database: 'ok',
    });
    const detail = (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data;
    expect(detail.fileSize).toBe(0);
    expect(detail.documentHash).toBe('');

    await rm(files);
    await rename(`${files}.away`, files);
    // Nothing half-written was left behind.
    const leftovers = (await readdir(files, { recursive: true })).filter((f) =>
      f.toString().endsWith('.part'),
    );
    expect(leftovers).toEqual([]);
    expect((await ready(server)).status).toBe(200);
    const again = await putFile(server, ticket);
    expect(again.status).toBe(200);
    expect(
      (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data.fileSize,
    ).toBeGreaterThan(0);
  });
});
