import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/child-server.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { field } from '../helpers/factories.ts';
import { startCluster, type Cluster } from '../scale/cluster.ts';
import { giveTemplateFile } from '../templates/setup.ts';
import { waitFor } from '../webhooks/support.ts';

/*
 * Bulk sends across process deaths and instances: a server in its own process is SIGKILLed in the
 * middle of a 2,000-row send and a new one started; three instances on one PostgreSQL database
 * share one send. Each row's document and invitation exist exactly once either way.
 */

const clientRows = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    signers: [{ role: 'Client', name: `Client ${i}`, email: `${tag}${i}@bulk.test` }],
  }));

async function prepare(cluster: Cluster): Promise<string> {
  const tpl = await api(cluster.servers[0], cluster.key, 'POST', '/api/v1/templates', {
    name: 'Renewal',
    roles: [{ name: 'Client' }],
    fields: [field({ label: 'Sign here' })],
  });
  expect(tpl.status).toBe(201);
  await giveTemplateFile(
    { app: { deps: { storage: cluster.storage } }, database: cluster.db },
    tpl.body.data.id,
  );
  return tpl.body.data.id;
}

/** Every row's document exactly once, and one invitation per recipient (a mail re-sent after a crash keeps its Message-ID). */
async function expectExactlyOnce(
  cluster: Cluster,
  id: string,
  tag: string,
  n: number,
): Promise<void> {
  const db = cluster.db.handle.db;
  const docs = await db
    .selectFrom('documents')
    .select(['id', 'status'])
    .where('bulk_send_id', '=', id)
    .execute();
  expect(docs).toHaveLength(n);
  expect(docs.every((d) => d.status === 'pending')).toBe(true);
  const rows = await db
    .selectFrom('bulk_send_rows')
    .select(['status', 'document_id'])
    .where('bulk_send_id', '=', id)
    .execute();
  expect(rows.filter((r) => r.status === 'sent')).toHaveLength(n);
  expect(new Set(rows.map((r) => r.document_id)).size).toBe(n);
  const signers = await db
    .selectFrom('signers')
    .innerJoin('documents', 'documents.id', 'signers.document_id')
    .select('signers.email')
    .where('documents.bulk_send_id', '=', id)
    .execute();
  expect(new Set(signers.map((s) => s.email)).size).toBe(n);

  const invitations = () => {
    const ids = new Map<string, Set<string>>();
    for (const m of cluster.sink.messages) {
      const to = m.to.find((a) => a.startsWith(tag));
      if (!to) continue;
      const messageId = /^Message-ID:\s*(\S+)/im.exec(m.raw)?.[1] ?? m.raw;
      ids.set(to, (ids.get(to) ?? new Set()).add(messageId));
    }
    return ids;
  };
  await waitFor(() => invitations().size === n, `${n} invitations`, 240_000, 500);
  for (const [to, ids] of invitations()) expect(ids.size, to).toBe(1);
}

describe('a bulk send whose server is SIGKILLed midway', () => {
  let cluster: Cluster;
  afterAll(async () => cluster?.close());

  it('resumes on a new process: exactly 2,000 documents and 2,000 invitations', async () => {
    cluster = await startCluster({
      size: 1,
      redis: false,
      env: { MAIL_RATE_PER_SECOND: '5000', LOG_LEVEL: 'warn' },
    });
    const tpl = await prepare(cluster);
    const created = await api(cluster.servers[0], cluster.key, 'POST', '/api/v1/bulk-sends', {
      templateId: tpl,
      name: 'Crash',
      rows: clientRows(2000, 'crash'),
    });
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const progress = async () =>
      await cluster.db.handle.db
        .selectFrom('bulk_sends')
        .select(['sent', 'status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    await waitFor(async () => (await progress()).sent >= 150, 'the first rows sent', 120_000, 50);
    cluster.servers[0].process.kill('SIGKILL');
    await cluster.servers[0].exited;
    const atKill = (await progress()).sent;
    expect(atKill).toBeLessThan(2000);
    await cluster.refill();
    // The dead process's job leases run out (60 s), then the new one takes its chunks over.
    await waitFor(
      async () => (await progress()).status === 'completed',
      'the bulk send to complete',
      240_000,
      500,
    );
    expect(await progress()).toMatchObject({ sent: 2000 });
    await expectExactlyOnce(cluster, id, 'crash', 2000);
  }, 600_000);
});

describe.skipIf(!testDatabaseUrl)('three instances on one PostgreSQL database', () => {
  let cluster: Cluster;
  afterAll(async () => cluster?.close());

  it('share one bulk send without a duplicate document or invitation', async () => {
    cluster = await startCluster({
      size: 3,
      redis: false,
      env: { MAIL_RATE_PER_SECOND: '5000', LOG_LEVEL: 'warn' },
    });
    const tpl = await prepare(cluster);
    const created = await api(cluster.servers[1], cluster.key, 'POST', '/api/v1/bulk-sends', {
      templateId: tpl,
      rows: clientRows(1500, 'shared'),
    });
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const db = cluster.db.handle.db;
    await waitFor(
      async () =>
        (
          await db
            .selectFrom('bulk_sends')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).status === 'completed',
      'completion',
      300_000,
      500,
    );
    const got = await api(cluster.servers[2], cluster.key, 'GET', `/api/v1/bulk-sends/${id}`);
    expect(got.body.data).toMatchObject({
      status: 'completed',
      total: 1500,
      sent: 1500,
      failed: 0,
    });
    await expectExactlyOnce(cluster, id, 'shared', 1500);
  }, 600_000);
});
