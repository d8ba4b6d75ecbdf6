import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import type { EventType } from '../../src/modules/events/event-types.ts';
import { emitEvent } from '../../src/modules/events/emit.ts';
import { loadSigningCertificate } from '../../src/pdf/certificate.ts';
import { signingCertPassword } from '../../src/secret-key.ts';
import { createStorage } from '../../src/storage/create-storage.ts';
import type { Storage } from '../../src/storage/storage.ts';
import {
  api,
  childEnv,
  cli,
  serve,
  type ApiReply,
  type ChildServer,
} from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { REDIS_URL } from '../helpers/redis.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { startReceiver, waitFor, type Receiver, type Respond } from '../webhooks/support.ts';
import { documentEventData } from '../helpers/event-data.ts';

/**
 * Several `signet serve` processes (the image's start command) deployed as one service: one
 * PostgreSQL database, which they migrate themselves on start, one Redis, one data directory for
 * local files, one signing certificate, one SMTP relay, and one public address. A test plays the
 * load balancer: it sends each request to the next instance in turn, routing URLs the service
 * hands out (upload and signing links) by their path.
 */

/** The load balancer's address, as the instances print it in links; never contacted (`.invalid`). */
export const PUBLIC_URL = 'http://signet.invalid';

/** Path and query of a URL the service handed out, to send to an instance of our choosing. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** The token of the first signing link (`PUBLIC_URL/sign/{token}`) in a text. */
export function signingToken(text: string): string {
  const match = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/sign/([A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`No signing link in: ${text.slice(0, 500)}`);
  return match[1];
}

export interface Cluster {
  db: TestDatabase;
  sink: SmtpSink;
  /** The shared data directory's files, as every instance sees them. */
  storage: Storage;
  /** DER of the one certificate every instance signs with. */
  certificateDer: Buffer;
  /** Slot i holds instance i (a replacement takes the slot of the one it replaces). */
  servers: ChildServer[];
  orgId: string;
  /** An API key with every scope. */
  key: string;
  /** The next instance in turn; instances that were sent a signal have left the rotation. */
  next(): ChildServer;
  /** A JSON request to the next instance, with the cluster's key unless another (or `null`) is given. */
  request(method: string, url: string, body?: unknown, key?: string | null): Promise<ApiReply>;
  /** Starts a fresh instance in every slot whose process was sent a signal, so all slots serve again. */
  refill(): Promise<void>;
  /** A receiver answering as `respond` says (closed with the cluster), and a webhook of `events` delivering to it. */
  subscribe(
    events: EventType[],
    respond: Respond,
  ): Promise<{ receiver: Receiver; webhookId: string }>;
  /**
   * A webhook of `type` whose receiver answers each attempt after `answerMs`, and `count` such events
   * at once; resolves when every instance has attempts of them on the wire.
   */
  slowDeliveries(
    type: EventType,
    count: number,
    answerMs: number,
  ): Promise<{ receiver: Receiver; webhookId: string; docIds: string[] }>;
  /** Commits `count` events at once, as a burst of changes would; returns the document ids they name. */
  emit(type: EventType, count: number, tag: string): Promise<string[]>;
  /** Ids of the webhook's deliveries, and how many have succeeded and how many are leased. */
  deliveries(webhookId: string): Promise<{ ids: string[]; succeeded: number; leased: number }>;
  /** Waits until no job is queued, running or leased (mail sent, PDFs signed), so what they do is final. */
  jobsSettled(): Promise<void>;
  close(): Promise<void>;
}

/** Attempts one instance's delivery worker has in flight at most (its default concurrency). */
const ATTEMPTS_PER_INSTANCE = 32;

const inRotation = (s: ChildServer) =>
  s.process.exitCode === null && s.process.signalCode === null && !s.process.killed;

export async function startCluster(options: {
  size: number;
  redis: boolean;
  env?: Record<string, string>;
}): Promise<Cluster> {
  // Empty: the instances race to migrate it, as replicas of a fresh deployment do.
  const db = await createTestDatabase({ migrated: false });
  const sink = await SmtpSink.start();
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-cert-'));
  // The server's own generator writes a PKCS#12 file (its password derived from a secret key); every instance is then configured with that file.
  const certPassword = signingCertPassword(randomBytes(32));
  const certificate = await loadSigningCertificate({
    dataDir: certDir,
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: certPassword,
  });
  const env = childEnv({
    DATA_DIR: db.dataDir,
    DATABASE_URL: db.url,
    REDIS_URL: options.redis ? REDIS_URL : undefined,
    PUBLIC_URL,
    SMTP_URL: sink.url,
    SIGNING_CERT_P12: path.join(certDir, 'signing-cert.p12'),
    SIGNING_CERT_PASSWORD: certPassword,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Debug logs name each webhook delivery an instance attempted.
    LOG_LEVEL: 'debug',
    ...options.env,
  });

  const servers: ChildServer[] = [];
  const receivers: Receiver[] = [];
  const cleanup = async () => {
    for (const s of servers)
      if (s.process.exitCode === null && s.process.signalCode === null) s.process.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    for (const r of receivers) await r.close();
    await sink.close();
    await db.drop();
    fs.rmSync(certDir, { recursive: true, force: true });
  };
  // The instances boot while the CLI (another process on the same empty database) issues the organization and key.
  const booting = Array.from({ length: options.size }, () => serve(env));
  const issuing = (async () => {
    const org = await cli(env, [
      'org',
      'create',
      '--name',
      'Cluster',
      '--admin-email',
      'ops@cluster.test',
    ]);
    const { key } = await cli(env, ['key', 'create', '--org', org.id, '--scopes', 'all']);
    return { orgId: org.id as string, key: key as string };
  })();
  const started = await Promise.allSettled(booting);
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
  const issued = await issuing.catch((err: unknown) => err as Error);
  const failure = started.find((s) => s.status === 'rejected');
  if (failure || issued instanceof Error) {
    await cleanup();
    throw failure?.status === 'rejected' ? failure.reason : issued;
  }
  const { orgId, key } = issued as { orgId: string; key: string };

  let turn = 0;
  const next = () => {
    const live = servers.filter(inRotation);
    if (live.length === 0) throw new Error('no instance is running');
    return live[turn++ % live.length];
  };
  const handle = db.handle.db;
  const subscribe: Cluster['subscribe'] = async (events, respond) => {
    const receiver = await startReceiver(respond);
    receivers.push(receiver);
    const res = await api(next(), key, 'POST', '/api/v1/webhooks', { url: receiver.url, events });
    if (res.status !== 201) throw new Error(`webhook: ${res.status} ${JSON.stringify(res.body)}`);
    return { receiver, webhookId: res.body.data.id as string };
  };
  const emit: Cluster['emit'] = async (type, count, tag) => {
    const ids = Array.from({ length: count }, (_, i) => `doc_${tag}_${String(i).padStart(4, '0')}`);
    await handle.transaction().execute(async (trx) => {
      for (const id of ids) await emitEvent(trx, systemClock, orgId, type, documentEventData(id));
    });
    return ids;
  };
  return {
    db,
    sink,
    storage: createStorage(loadConfig({ DATA_DIR: db.dataDir })),
    certificateDer: certificate.chain[0],
    servers,
    orgId,
    key,
    next,
    request: (method, url, body, requestKey) =>
      api(next(), requestKey === undefined ? key : requestKey, method, url, body),
    refill: async () => {
      await Promise.all(
        servers.map(async (s, i) => {
          if (inRotation(s)) return;
          if (s.process.exitCode === null && s.process.signalCode === null)
            s.process.kill('SIGKILL');
          await s.exited;
          servers[i] = await serve(env);
        }),
      );
    },
    subscribe,
    emit,
    slowDeliveries: async (type, count, answerMs) => {
      const { receiver, webhookId } = await subscribe([type], () => ({
        status: 200,
        delayMs: answerMs,
      }));
      const docIds = await emit(type, count, type.replace(/\W/g, ''));
      // More in flight than all instances but one can hold: every instance holds some.
      const everywhere = ATTEMPTS_PER_INSTANCE * (servers.filter(inRotation).length - 1);
      await waitFor(
        () => receiver.pending > everywhere,
        'attempts in flight on every instance',
        20_000,
      );
      return { receiver, webhookId, docIds };
    },
    deliveries: async (webhookId) => {
      const rows = await handle
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'leased_until'])
        .where('webhook_id', '=', webhookId)
        .execute();
      return {
        ids: rows.map((r) => r.id),
        succeeded: rows.filter((r) => r.status === 'succeeded').length,
        leased: rows.filter((r) => r.leased_until !== null).length,
      };
    },
    jobsSettled: async () => {
      const busy = () =>
        handle
          .selectFrom('jobs')
          .select('id')
          .where((eb) =>
            eb.or([eb('status', 'in', ['pending', 'running']), eb('leased_until', 'is not', null)]),
          )
          .execute();
      await waitFor(
        async () => (await busy()).length === 0,
        'the job queue to settle',
        30_000,
        100,
      );
    },
    close: cleanup,
  };
}
