import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '../../src/modules/documents-core/documents.schemas.ts';
import { generatedPdf } from '../files/helpers.ts';
import {
  api,
  attemptedDeliveries,
  logLines,
  terminate,
  type ChildServer,
} from '../helpers/child-server.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { redisReachable } from '../helpers/redis.ts';
import { sleep, waitFor } from '../webhooks/support.ts';
import { pathOf, startCluster, type Cluster } from './cluster.ts';

/*
 * SIGTERM (what a container runtime or a rolling deploy sends) on one of three instances: it stops
 * accepting connections and claiming work at once, finishes the requests in flight and the
 * webhook attempts and jobs in hand, leaves no lease behind, and exits 0 well within 30 s. The
 * other instances carry on with everything that arrives meanwhile.
 */

const redis = testDatabaseUrl ? await redisReachable() : false;
if (!testDatabaseUrl)
  console.info(
    'graceful shutdown of one of three instances: skipped, it needs PostgreSQL (set TEST_DATABASE_URL)',
  );

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** True when a new TCP connection to the port is refused. */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/**
 * PUTs `bytes` a chunk at a time, as a slow client would, over a keep-alive agent (as browsers,
 * fetch and most HTTP clients use): the connection stays open after the answer.
 */
function slowPut(
  url: string,
  headers: Record<string, string>,
  bytes: Buffer,
  agent: http.Agent,
  chunkBytes = 1 << 20,
  everyMs = 80,
) {
  let sent = 0;
  let finished = false;
  const done = new Promise<{ status: number; body: any; at: number }>((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'PUT', agent, headers: { ...headers, 'content-length': String(bytes.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          finished = true;
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            at: Date.now(),
          });
        });
      },
    );
    req.on('error', (err) => {
      finished = true;
      reject(err);
    });
    const pump = () => {
      if (sent >= bytes.length) return void req.end();
      const part = bytes.subarray(sent, sent + chunkBytes);
      sent += part.length;
      req.write(part);
      setTimeout(pump, everyMs);
    };
    pump();
  });
  return { done, sent: () => sent, finished: () => finished };
}

describe.skipIf(!testDatabaseUrl)('SIGTERM on one of three instances', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    // The default 10 s attempt timeout: a 3 s answer is slow, not failed.
    cluster = await startCluster({
      size: 3,
      redis,
      env: { WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s' },
    });
  }, 90_000);
  // Each test stops an instance; the next starts with three again.
  beforeEach(async () => cluster.refill(), 60_000);
  afterAll(async () => cluster?.close());
  const exitsCleanly = async (server: ChildServer) => {
    const stopped = await terminate(server);
    expect(stopped.code, server.output().slice(-2000)).toBe(0);
    expect(stopped.ms).toBeLessThan(30_000);
    return stopped;
  };

  it('during a 50 MB upload: stops accepting and claiming, the upload completes, exit 0', async () => {
    const x = cluster.servers[0];
    const { receiver: hook, webhookId } = await cluster.subscribe(['document.viewed'], () => ({
      status: 200,
    }));
    const created = await cluster.request('POST', '/api/v1/documents', { name: 'Large scan' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const ticket = await api(x, cluster.key, 'POST', `/api/v1/documents/${id}/upload`, {
      fileSize: MAX_UPLOAD_BYTES,
    });
    expect(ticket.status).toBe(200);

    // A real PDF: every upload is read at upload, so random bytes behind a PDF header are refused (415).
    const parts: Buffer[] = [];
    for await (const part of generatedPdf(MAX_UPLOAD_BYTES)) parts.push(Buffer.from(part));
    const bytes = Buffer.concat(parts);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const upload = slowPut(
        `${x.url}${pathOf(ticket.body.data.uploadUrl)}`,
        ticket.body.data.headers,
        bytes,
        agent,
      );
      await waitFor(() => upload.sent() >= 10 << 20, 'the first 10 MB to be sent', 20_000);
      const sigtermAt = Date.now();
      const stopping = terminate(x);
      await waitFor(
        () => refusesConnections(x.port),
        'the instance to stop accepting connections',
        5_000,
      );
      expect(upload.finished()).toBe(false);

      // Work that arrives while it drains is left to the others: bursts of events, each claimed by whoever polls first.
      const drained: string[] = [];
      for (let burst = 0; burst < 40 && !upload.finished(); burst++) {
        drained.push(...(await cluster.emit('document.viewed', 5, `drain${burst}`)));
        await sleep(100);
      }
      expect(drained.length).toBeGreaterThan(0);

      const answer = await upload.done;
      expect(answer.status, `${JSON.stringify(answer.body)}\n${x.output().slice(-3000)}`).toBe(200);
      expect(answer.body.data).toMatchObject({
        id,
        fileSize: MAX_UPLOAD_BYTES,
        documentHash: sha256(bytes),
      });
      const stopped = await stopping;
      expect(stopped.code, x.output().slice(-2000)).toBe(0);
      // It exits once the upload is answered: an idle keep-alive connection does not hold it open.
      expect(sigtermAt + stopped.ms - answer.at).toBeLessThan(5_000);

      // Another instance serves the document with its file.
      const detail = await cluster.request('GET', `/api/v1/documents/${id}`);
      expect(detail.body.data).toMatchObject({
        fileSize: MAX_UPLOAD_BYTES,
        documentHash: sha256(bytes),
      });
      const download = await fetch(`${cluster.next().url}/api/v1/documents/${id}/download`, {
        headers: { authorization: `Bearer ${cluster.key}` },
      });
      expect(download.status).toBe(200);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(bytes));

      // Every event of the drain was delivered, by the others only.
      const { ids } = await waitFor(
        async () => {
          const d = await cluster.deliveries(webhookId);
          return d.succeeded === drained.length && d.leased === 0 ? d : null;
        },
        'the events of the drain to be delivered',
        20_000,
        100,
      );
      expect(new Set(hook.received.map((r) => JSON.parse(r.body).data.id))).toEqual(
        new Set(drained),
      );
      const byStopping = [...attemptedDeliveries(x)].filter((d) => ids.includes(d));
      expect(byStopping).toEqual([]);
    } finally {
      agent.destroy();
    }
  }, 90_000);

  it('during slow webhook attempts: they finish and are recorded once, no lease is left, exit 0', async () => {
    const events = 100;
    // Answers take 3 s: every instance, the one stopped included, has attempts on the wire.
    const {
      receiver: hook,
      webhookId,
      docIds,
    } = await cluster.slowDeliveries('document.cancelled', events, 3_000);

    const y = cluster.servers[1];
    const sigtermAt = Date.now();
    await exitsCleanly(y);
    // It waited for the answers to the attempts it had on the wire, and recorded them.
    const finishedAfterSigterm = logLines(y, 'webhook attempt succeeded').filter(
      (l) => l.time >= sigtermAt,
    );
    expect(finishedAfterSigterm.length).toBeGreaterThan(0);

    await waitFor(
      async () => {
        const d = await cluster.deliveries(webhookId);
        return d.succeeded === events && d.leased === 0;
      },
      `all ${events} deliveries to succeed`,
      30_000,
      100,
    );
    // Nothing cut off, nothing repeated: each event arrived exactly once.
    expect(hook.cutOff).toEqual([]);
    expect(hook.received.map((r) => JSON.parse(r.body).data.id).sort()).toEqual(docIds);
    expect(hook.maxConcurrentPerDelivery).toBe(1);
  }, 90_000);

  it('with mail jobs in hand: each is finished once, no job is left leased, exit 0', async () => {
    const recipients = Array.from({ length: 30 }, (_, i) => `recipient${i}@shutdown.test`);
    const created = await cluster.request('POST', '/api/v1/documents', {
      name: 'Circular',
      signingType: 'parallel',
      signers: recipients.map((email, i) => ({ name: `Recipient ${i}`, email })),
      fields: [field({ assignedTo: 0 })],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const pdf = await samplePdf();
    const ticket = await cluster.request('POST', `/api/v1/documents/${id}/upload`, {
      fileSize: pdf.length,
    });
    const put = await fetch(`${cluster.next().url}${pathOf(ticket.body.data.uploadUrl)}`, {
      method: 'PUT',
      headers: ticket.body.data.headers,
      body: new Uint8Array(pdf),
    });
    expect(put.status).toBe(200);

    // A slow relay: every invitation job waits 2 s for its mail to be accepted.
    cluster.sink.holdMs = 2_000;
    try {
      expect((await cluster.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
      // An instance has at most MAIL_CONNECTIONS (10) mails in hand: with more than 20 held, all three have some.
      await waitFor(
        () => cluster.sink.holding > 20,
        'mail jobs in hand on all three instances',
        20_000,
      );
      const z = cluster.servers[2];
      await exitsCleanly(z);
      expect(logLines(z, 'job failed')).toEqual([]);
      await cluster.jobsSettled();
    } finally {
      cluster.sink.holdMs = 0;
    }
    for (const email of recipients) expect(cluster.sink.to(email), email).toHaveLength(1);
  }, 90_000);
});
