import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { DbHandle } from './db/create-db.ts';
import type { Metrics } from './http/metrics.ts';
import type { Counters } from './http/counters.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SmsSender } from './sms-types.ts';
import type { Storage } from './storage/storage.ts';
import type { CertificateCheck } from './pdf/certificate-check.ts';
import type { PdfWorkers } from './pdf/pdf-workers.ts';

/**
 * Everything a request handler or worker may use. Built once per app by buildApp; nothing reads
 * globals. Modules import this type from here, never from app.ts, so no module depends on the
 * place that wires them all together.
 */
export interface AppDeps {
  config: Config;
  db: DbHandle['db'];
  dialect: DbHandle['dialect'];
  storage: Storage;
  mailer: Mailer;
  /** Codes by SMS: SMS_URL's driver (sms/sms-sender.ts, built by app.ts). */
  sms: SmsSender;
  clock: Clock;
  metrics: Metrics;
  /**
   * Key for signed, short-lived tokens (upload URLs) and the hashes of one-time codes, derived
   * from SECRET_KEY (the same on every instance), never stored.
   */
  secret: Buffer;
  /** Shared counters for per-campaign and per-address limits (http/counters.ts). */
  counters: Counters;
  /** Key that encrypts webhook secrets at rest, derived from SECRET_KEY (src/secret-key.ts). */
  webhookKey: Buffer;
  /** SQLite: whether writes can succeed now (db/sqlite-availability.ts); always true on PostgreSQL. */
  databaseWritable: () => boolean;
  /** Whether the signing certificate opens (`/readyz`). */
  certificate: CertificateCheck;
  /** This app's PDF worker threads, closed with it (pdf/pdf-workers.ts). */
  pdf: PdfWorkers;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
}
