import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/http/auth.ts';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';
import { createApiKey, createOrganization } from '../../src/modules/orgs/orgs.service.ts';
import { TestClock } from './clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

/** Collects mail in memory unless a test wants the real SMTP path. */
export class MemoryMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
  close(): void {}
}

export interface TestApp {
  app: FastifyInstance;
  clock: TestClock;
  database: TestDatabase;
  mailer: MemoryMailer | Mailer;
  /** Organization and all-scopes key made for the test. */
  orgId: string;
  key: string;
  /** Another organization with an all-scopes key (for isolation tests). */
  newOrg(name?: string): Promise<{ orgId: string; key: string }>;
  /** A key of `orgId` with only these scopes. */
  keyWith(scopes: string[]): Promise<string>;
  request(
    method: string,
    url: string,
    opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply>;
  /** Runs queued background jobs (mail) until none is due. */
  drainJobs(): Promise<void>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  body: any;
  headers: LightMyRequestResponse['headers'];
  raw: LightMyRequestResponse;
}

export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    mailer?: Mailer /** Share another app's database (it stays the owner and drops it). */;
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    // Test files fire many requests per key; the limiter itself is tested with a small budget.
    RATE_LIMIT_PER_MINUTE: '100000',
    // Isolation tests send hundreds of refused keys from one address; the 401 budget per IP is
    // tested with a small budget in test/hostile/public-endpoints.test.ts.
    AUTH_FAILURES_PER_MINUTE: '100000',
    // Likewise mail: the pacing itself is tested with a small rate (test/bulk-sends/mail-rate.test.ts).
    MAIL_RATE_PER_SECOND: '100000',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const clock = new TestClock();
  // With SMTP_URL in env the app builds its real SMTP mailer; otherwise mail is kept in memory.
  const mailer = options.mailer ?? (options.env?.SMTP_URL ? undefined : new MemoryMailer());
  const app = await buildApp({ config, database: database.handle, clock, mailer, jobPollMs: 20 });
  await app.ready();
  const db = database.handle.db;

  const newOrg = async (name = 'Acme') => {
    const org = await createOrganization(db, {
      name,
      adminEmail: `admin@${name.toLowerCase().replace(/\W/g, '')}.test`,
    });
    const created = await createApiKey(db, { orgId: org.id, scopes: [...SCOPES] });
    return { orgId: org.id, key: created.key };
  };
  const main = await newOrg('Acme');

  const request: TestApp['request'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? main.key : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const raw = await app.inject({ method: method as never, url, headers, payload });
    let body: unknown = raw.body;
    if ((raw.headers['content-type'] ?? '').toString().includes('json') && raw.body)
      body = JSON.parse(raw.body);
    return { status: raw.statusCode, body, headers: raw.headers, raw };
  };

  return {
    app,
    clock,
    database,
    mailer: app.deps.mailer,
    orgId: main.orgId,
    key: main.key,
    newOrg,
    keyWith: async (scopes) => (await createApiKey(db, { orgId: main.orgId, scopes })).key,
    request,
    drainJobs: () => app.jobs.drain(),
    close: async () => {
      await app.jobs.stop();
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}
