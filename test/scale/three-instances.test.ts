import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/orgs/orgs.service.ts';
import { api, attemptedDeliveries, type ChildServer } from '../helpers/child-server.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { REDIS_URL, redisReachable } from '../helpers/redis.ts';
import { checkSignature } from '../pdf/pdf-helpers.ts';
import { giveTemplateFile } from '../templates/setup.ts';
import { waitFor } from '../webhooks/support.ts';
import { pathOf, signingToken, startCluster, type Cluster } from './cluster.ts';

/*
 * Three server processes on one PostgreSQL database and one Redis behave as one service: whichever
 * instance a request reaches, and whichever runs a background job, the outcome is the same as
 * with one. SQLite is a single-file, single-writer database: this deployment is PostgreSQL's.
 */

const INSTANCES = 3;
const redis = testDatabaseUrl ? await redisReachable() : false;
if (!testDatabaseUrl)
  console.info(
    'three instances as one service: skipped, it needs PostgreSQL (set TEST_DATABASE_URL)',
  );
else if (!redis)
  console.info(
    `three instances as one service: the shared rate-limit test is skipped, nothing answers at ${REDIS_URL}`,
  );

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const typed = (value: string) => ({ kind: 'typed', value });

describe.skipIf(!testDatabaseUrl)(
  `${INSTANCES} server processes on one PostgreSQL database${redis ? ' and one Redis' : ''}`,
  () => {
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({
        size: INSTANCES,
        redis,
        // Leases of a killed instance run out 3 s + 5 s after its claim; retries come quickly.
        env: {
          WEBHOOK_TIMEOUT_MS: '3000',
          WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
        },
      });
    }, 90_000);
    afterAll(async () => cluster?.close());

    it('started on an empty database: one schema, one bootstrap organization at most, every instance ready', async () => {
      const db = cluster.db.handle.db;
      const defaults = await db
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', 'Default')
        .execute();
      expect(defaults.length).toBeLessThanOrEqual(1);
      const printed = cluster.servers.filter((s) =>
        s.output().includes('Created organization "Default"'),
      );
      expect(printed).toHaveLength(defaults.length);
      for (const s of cluster.servers) expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    });

    it('a document created on one, uploaded through the second, sent and signed through the third completes with one signed PDF', async () => {
      const [first, second, third] = cluster.servers;
      const { key } = cluster;
      const { receiver: completions } = await cluster.subscribe(['document.completed'], () => ({
        status: 200,
      }));
      const ann = 'ann@cluster.test';
      const ben = 'ben@cluster.test';

      const created = await api(first, key, 'POST', '/api/v1/documents', {
        name: 'Three-way agreement',
        signingType: 'parallel',
        signers: [
          { name: 'Ann', email: ann },
          { name: 'Ben', email: ben },
        ],
        fields: [
          field({ assignedTo: 0, required: true }),
          field({ assignedTo: 1, y: 40, required: true }),
        ],
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;

      const pdf = await samplePdf(2, 'Three-way agreement');
      const ticket = await api(second, key, 'POST', `/api/v1/documents/${id}/upload`, {
        fileSize: pdf.length,
      });
      expect(ticket.status).toBe(200);
      const put = await fetch(`${second.url}${pathOf(ticket.body.data.uploadUrl)}`, {
        method: 'PUT',
        headers: ticket.body.data.headers,
        body: new Uint8Array(pdf),
      });
      expect(put.status).toBe(200);
      expect((await put.json()).data).toMatchObject({
        fileSize: pdf.length,
        documentHash: sha256(pdf),
      });

      const sent = await api(third, key, 'POST', `/api/v1/documents/${id}/send`);
      expect(sent.status).toBe(200);
      expect(sent.body.data).toMatchObject({ status: 'pending', signerCount: 2 });

      // Ann signs through the link in her invitation, mailed by whichever instance ran the mail job.
      const invitation = await cluster.sink.waitFor((m) => m.to.includes(ann), 20_000);
      const annToken = signingToken(invitation.text);
      expect((await api(third, null, 'GET', `/api/v1/signing/${annToken}`)).status).toBe(200);
      const annDone = await api(third, null, 'POST', `/api/v1/signing/${annToken}/complete`, {
        values: {},
        signature: typed('Ann'),
      });
      expect(annDone.status, JSON.stringify(annDone.body)).toBe(200);
      // Ben signs through an embedded-signing link.
      const signers = (await api(third, key, 'GET', `/api/v1/documents/${id}`)).body.data
        .signers as { id: string; name: string }[];
      const link = await api(
        third,
        key,
        'POST',
        `/api/v1/documents/${id}/signers/${signers.find((s) => s.name === 'Ben')!.id}/link`,
      );
      expect(link.status).toBe(200);
      const benDone = await api(
        third,
        null,
        'POST',
        `/api/v1/signing/${signingToken(link.body.data.url)}/complete`,
        { values: {}, signature: typed('Ben') },
      );
      expect(benDone.status, JSON.stringify(benDone.body)).toBe(200);

      // The finalize job runs on one instance, once.
      await waitFor(
        async () => {
          const row = await cluster.db.handle.db
            .selectFrom('documents')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirst();
          return row?.status === 'completed';
        },
        'the document to complete',
        30_000,
        100,
      );
      await cluster.jobsSettled();

      // Every instance tells the same story and serves the same signed file.
      const details = await Promise.all(
        cluster.servers.map((s) => api(s, key, 'GET', `/api/v1/documents/${id}`)),
      );
      const hash = details[0].body.data.signedFileHash as string;
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      for (const d of details)
        expect(d.body.data).toMatchObject({
          status: 'completed',
          signedFileHash: hash,
          completedAt: details[0].body.data.completedAt,
        });
      const downloads = await Promise.all(
        cluster.servers.map(async (s) =>
          Buffer.from(
            await (
              await fetch(`${s.url}/api/v1/documents/${id}/download`, {
                headers: { authorization: `Bearer ${key}` },
              })
            ).arrayBuffer(),
          ),
        ),
      );
      for (const bytes of downloads) expect(sha256(bytes)).toBe(hash);
      const signature = checkSignature(downloads[0]);
      expect(signature.signatureValid).toBe(true);
      expect(signature.certificateDer.equals(cluster.certificateDer)).toBe(true);

      // One signed PDF in the shared data directory, one completion in the audit trail and the outbox.
      const files = fs.readdirSync(path.join(cluster.db.dataDir, 'files', 'documents', id));
      expect(files).toEqual([`signed-${hash}.pdf`]);
      const audit = await api(
        cluster.next(),
        key,
        'GET',
        `/api/v1/documents/${id}/audit?limit=100`,
      );
      expect(
        audit.body.data.filter((e: { action: string }) => e.action === 'document.completed'),
      ).toHaveLength(1);
      const events = await cluster.db.handle.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'document.completed')
        .execute();
      expect(events.filter((e) => JSON.parse(e.data).id === id)).toHaveLength(1);
      // Each mail once: one invitation and one signed copy per signer, the copy the very file served.
      for (const address of [ann, ben]) {
        const mails = cluster.sink.to(address);
        expect(mails.map((m) => m.attachments.length)).toEqual([0, 1]);
        expect(sha256(mails[1].attachments[0].content)).toBe(hash);
      }
      // And the completion reached the webhook once.
      await waitFor(
        () => completions.received.some((r) => JSON.parse(r.body).data.id === id),
        'the document.completed delivery',
      );
      expect(completions.received.filter((r) => JSON.parse(r.body).data.id === id)).toHaveLength(1);
    }, 90_000);

    it('50 concurrent submissions spread over the instances against maxSubmissions 10 make exactly 10', async () => {
      const template = await cluster.request('POST', '/api/v1/templates', {
        name: 'Enrolment',
        roles: [{ name: 'Applicant' }],
        fields: [field({ label: 'Signature' })],
      });
      expect(template.status).toBe(201);
      const templateId = template.body.data.id as string;
      // Templates have no upload endpoint yet: the file goes into the shared storage and database directly.
      await giveTemplateFile(
        { app: { deps: { storage: cluster.storage } }, database: cluster.db },
        templateId,
      );
      const created = await cluster.request('POST', '/api/v1/campaigns', {
        templateId,
        name: 'Open enrolment',
        maxSubmissions: 10,
        collectPhone: false,
      });
      expect(created.status).toBe(201);
      const campaign = created.body.data;

      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          cluster.request(
            'POST',
            `/api/v1/public/campaigns/${campaign.slug}/submissions`,
            { name: `Visitor ${i}`, email: `visitor${i}@cluster.test`, signature: typed(`V ${i}`) },
            null,
          ),
        ),
      );
      const accepted = results.filter((r) => r.status === 201);
      expect(accepted).toHaveLength(10);
      const refused = results.filter((r) => r.status !== 201);
      for (const r of refused)
        expect(r.body.error, JSON.stringify(r.body)).toMatchObject({ code: 'limit_reached' });

      const db = cluster.db.handle.db;
      const docs = await db
        .selectFrom('documents')
        .select('id')
        .where('campaign_id', '=', campaign.id)
        .execute();
      expect(new Set(docs.map((d) => d.id))).toEqual(new Set(accepted.map((r) => r.body.data.id)));
      for (const s of cluster.servers) {
        expect(
          (await api(s, cluster.key, 'GET', `/api/v1/campaigns/${campaign.id}`)).body.data,
        ).toMatchObject({ submissionCount: 10, status: 'closed' });
      }
      const closed = await db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'campaign.closed')
        .execute();
      expect(closed.filter((e) => JSON.parse(e.data).campaign.id === campaign.id)).toHaveLength(1);
      const submitted = await db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'campaign.submission.created')
        .execute();
      expect(submitted.filter((e) => JSON.parse(e.data).campaignId === campaign.id)).toHaveLength(
        10,
      );
      // Late submissions still find it closed, whichever instance they reach.
      for (let i = 0; i < INSTANCES; i++) {
        const late = await cluster.request(
          'POST',
          `/api/v1/public/campaigns/${campaign.slug}/submissions`,
          { name: 'Late', email: 'late@cluster.test', signature: typed('Late') },
          null,
        );
        expect(late.status).toBe(409);
      }
    }, 60_000);

    it.skipIf(!redis)(
      'one rate-limit budget per key across the instances (Redis)',
      async () => {
        // The default budget, 600 a minute, drawn on through all three instances at once.
        const budget = 600;
        const { key } = await createApiKey(cluster.db.handle.db, {
          orgId: cluster.orgId,
          scopes: ['documents.read'],
        });
        const remaining: number[] = [];
        const used = new Set<ChildServer>();
        for (let sent = 0; sent < budget; sent += 30) {
          const batch = await Promise.all(
            Array.from({ length: 30 }, () => {
              const server = cluster.next();
              used.add(server);
              return api(server, key, 'GET', '/api/v1/documents?limit=1');
            }),
          );
          for (const r of batch) {
            expect(r.status).toBe(200);
            expect(r.headers.get('ratelimit-limit')).toBe(String(budget));
            remaining.push(Number(r.headers.get('ratelimit-remaining')));
          }
        }
        expect(used.size).toBe(INSTANCES);
        // One counter: every request drew a different unit of the one budget.
        expect(remaining.sort((a, b) => a - b)).toEqual(
          Array.from({ length: budget }, (_, i) => i),
        );
        for (const s of cluster.servers) {
          const refused = await api(s, key, 'GET', '/api/v1/documents?limit=1');
          expect(refused.status).toBe(429);
          expect(refused.body.error.code).toBe('rate_limited');
          expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
        // Another key still has its whole budget.
        const other = await cluster.request('GET', '/api/v1/documents?limit=1');
        expect(other.status).toBe(200);
      },
      60_000,
    );

    it('500 webhook events are delivered once each, by all three, never one delivery twice at a time', async () => {
      const events = 500;
      const { receiver: hook, webhookId } = await cluster.subscribe(['document.expired'], () => ({
        status: 200,
        delayMs: 5 + Math.floor(Math.random() * 20),
      }));
      const docIds = await cluster.emit('document.expired', events, 'burst');

      await waitFor(() => hook.received.length >= events, `${events} deliveries`, 30_000, 50);
      const { ids } = await waitFor(async () => {
        const d = await cluster.deliveries(webhookId);
        return d.succeeded === events && d.leased === 0 ? d : null;
      }, 'every delivery to be recorded');
      expect(hook.received.map((r) => JSON.parse(r.body).data.id).sort()).toEqual(docIds);
      expect(new Set(hook.received.map((r) => r.headers['x-service-delivery-id']))).toEqual(
        new Set(ids),
      );
      expect(hook.maxConcurrentPerDelivery).toBe(1);
      const attempts = await cluster.db.handle.db
        .selectFrom('webhook_attempts')
        .select('id')
        .where('delivery_id', 'in', ids)
        .execute();
      expect(attempts).toHaveLength(events);

      // Each instance took a share, and no delivery was attempted by two of them.
      const mine = (s: ChildServer) =>
        new Set([...attemptedDeliveries(s)].filter((id) => ids.includes(id)));
      await waitFor(
        () => cluster.servers.reduce((n, s) => n + mine(s).size, 0) >= events,
        'the attempt logs',
      );
      const shares = cluster.servers.map(mine);
      for (const share of shares) expect(share.size).toBeGreaterThan(0);
      expect(shares.reduce((n, share) => n + share.size, 0)).toBe(events);
      expect(new Set(shares.flatMap((share) => [...share])).size).toBe(events);
    }, 60_000);

    it('an instance killed with SIGKILL mid-delivery loses nothing: the others deliver what it held', async () => {
      const events = 200;
      // Slow answers keep attempts on the wire on every instance, the victim's included.
      const {
        receiver: hook,
        webhookId,
        docIds,
      } = await cluster.slowDeliveries('document.declined', events, 1_000);

      const victim = cluster.servers[1];
      victim.process.kill('SIGKILL');
      expect(await victim.exited).toBeNull();
      const killedAt = Date.now();
      // The connections of its attempts died with it.
      await waitFor(() => hook.cutOff.length > 0, 'the killed attempts to be cut off', 5_000);
      const cutOff = new Set(hook.cutOff.map((r) => String(r.headers['x-service-delivery-id'])));

      // Its leases run out and the survivors deliver those too, with the same delivery ids.
      await waitFor(
        async () => {
          const d = await cluster.deliveries(webhookId);
          return d.succeeded === events && d.leased === 0;
        },
        `all ${events} deliveries to succeed`,
        40_000,
        200,
      );
      expect(new Set(hook.received.map((r) => JSON.parse(r.body).data.id))).toEqual(
        new Set(docIds),
      );
      for (const id of cutOff) {
        expect(
          hook.received.some((r) => r.headers['x-service-delivery-id'] === id && r.at > killedAt),
          id,
        ).toBe(true);
      }
      expect(hook.maxConcurrentPerDelivery).toBe(1);
      // The survivors still serve.
      for (const s of cluster.servers.filter((s) => s !== victim))
        expect((await api(s, cluster.key, 'GET', '/api/v1/documents?limit=1')).status).toBe(200);
    }, 90_000);
  },
);
