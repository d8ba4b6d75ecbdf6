import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import {
  ConfigError,
  PERF_MECHANISMS,
  type PerfMechanism,
  parseSchedule,
  parseTrustProxy,
  type ServerTimeouts,
} from './config-values.ts';
import { ExposureEnv, exposureConfig, type ExposureConfig } from './config-exposure.ts';
import { SmsEnv, smsConfig, type SmsConfig } from './config-sms.ts';

/**
 * The whole environment Signet reads, in one schema. `loadConfig` is the only place that
 * touches `process.env`; everything else receives the frozen result.
 */
const PERF_MECHANISMS_PATTERN = PERF_MECHANISMS.join('|');

const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String()),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DATA_DIR: Type.Optional(Type.String()),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(postgres|postgresql|sqlite)://' })),
  DATABASE_POOL_SIZE: Type.Optional(Type.String({ pattern: '^([1-9][0-9]?|100)$' })),
  STORAGE: Type.Optional(Type.Union([Type.Literal('local'), Type.Literal('s3')])),
  S3_BUCKET: Type.Optional(Type.String()),
  S3_REGION: Type.Optional(Type.String()),
  S3_ENDPOINT: Type.Optional(Type.String()),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String()),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String()),
  S3_FORCE_PATH_STYLE: Type.Optional(Type.String()),
  S3_PUBLIC_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.Optional(Type.String()),
  NODE_ENV: Type.Optional(Type.String()),
  WEBHOOK_ALLOWED_HOSTS: Type.Optional(Type.String()),
  WEBHOOK_RETRY_SCHEDULE: Type.Optional(Type.String()),
  SEALING_RETRY_SCHEDULE: Type.Optional(Type.String()),
  DELETED_RETENTION_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  WEBHOOK_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  WEBHOOK_LOG_DAYS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })),
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  SIGNING_CERT_P12: Type.Optional(Type.String()),
  SIGNING_CERT_PASSWORD: Type.Optional(Type.String()),
  REDIS_URL: Type.Optional(Type.String()),
  RATE_LIMIT_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  LOG_LEVEL: Type.Optional(
    Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    ),
  ),
  WORKERS: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  PERF_OFF: Type.Optional(Type.String({ pattern: `^((${PERF_MECHANISMS_PATTERN})(,|$))*$` })),
  GEOIP_DB: Type.Optional(Type.String()),
  TRUST_PROXY: Type.Optional(Type.String()),
  MAIL_ATTACHMENT_MAX_BYTES: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  FINALIZE_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  RATE_LIMIT_TOKEN_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  AUTH_FAILURES_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  CAMPAIGN_SUBMISSIONS_PER_HOUR: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  ADDRESS_SUBMISSIONS_PER_HOUR: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  CAMPAIGN_OTP_MAILS_PER_HOUR: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  ADDRESS_OTP_MAILS_PER_HOUR: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  IDENTITY_MAX_ATTEMPTS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  HEADERS_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  REQUEST_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  KEEP_ALIVE_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  IDLE_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  MAIL_RATE_PER_SECOND: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  MAIL_CONNECTIONS: Type.Optional(Type.String({ pattern: '^([1-9][0-9]?|100)$' })),
  PADES_LEVEL: Type.Optional(
    Type.Union(['B-B', 'B-T', 'B-LT', 'B-LTA'].map((l) => Type.Literal(l))),
  ),
  TSA_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TSA_USERNAME: Type.Optional(Type.String()),
  TSA_PASSWORD: Type.Optional(Type.String()),
  TIMESTAMP_RENEW_DAYS: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  ...ExposureEnv,
  ...SmsEnv,
});

/** Rates and attempts that bound what outsiders can make Signet do (docs/limits.md); 0 turns one off. */
export interface AbuseLimits {
  /** Requests per minute per signing or upload token. */
  readonly perTokenPerMinute: number;
  /** Refused keys and tokens per minute per client IP; past it, those (never a valid one) get 429. */
  readonly authFailuresPerMinute: number;
  readonly campaignSubmissionsPerHour: number;
  /** Submissions per hour per submitter address, across campaigns (each mails that address). */
  readonly addressSubmissionsPerHour: number;
  readonly campaignOtpMailsPerHour: number;
  /** Campaign codes mailed per hour to one address, across campaigns. */
  readonly addressOtpMailsPerHour: number;
  /** Identity evidence uploads per signer between two reviews by the sender. */
  readonly identityAttempts: number;
}

/** S3_REGION, S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE. */
export interface S3Access {
  readonly region: string;
  readonly endpoint: string | undefined;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  /** `undefined` selects the embedded SQLite file under `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** PostgreSQL: connections in the pool of each instance (DATABASE_POOL_SIZE, default 10). */
  readonly databasePoolSize: number;
  readonly storage:
    | { readonly driver: 'local'; readonly root: string }
    | (S3Access & {
        readonly driver: 's3';
        readonly bucket: string;
        /** Where upload clients reach the bucket, when not at `endpoint`; presigned URLs name it. */
        readonly publicEndpoint: string | undefined;
      });
  /** How to reach S3 whatever STORAGE is: backups to and restores from `s3://bucket/prefix` use it. */
  readonly s3: S3Access;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly mailSpoolDir: string;
  readonly production: boolean;
  readonly webhookAllowedHosts: readonly string[];
  /** Delays in milliseconds before retry 1..n. */
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  /** Days events and finished webhook deliveries are kept (`GET /api/v1/events`, the delivery log). */
  readonly webhookLogDays: number;
  /** Delays in milliseconds between sealing attempts; after the last, the document becomes `action_required`. */
  readonly sealingRetrySchedule: readonly number[];
  /** Days a deleted document's files and evidence are kept before they are erased. */
  readonly deletedRetentionDays: number;
  /** SECRET_KEY (required in production); undefined: generated into `dataDir` (src/secret-key.ts). */
  readonly secretKey: string | undefined;
  readonly signingCertP12: string | undefined;
  readonly signingCertPassword: string | undefined;
  readonly redisUrl: string | undefined;
  readonly rateLimitPerMinute: number;
  readonly logLevel: string;
  /** Background workers (mail, webhook delivery, schedulers) run in this process. */
  readonly workers: boolean;
  /** Performance mechanisms turned off, to measure what each gains (`npm run bench -- switches`). */
  readonly perfOff: ReadonlySet<PerfMechanism>;
  /** A MaxMind-format (.mmdb) city or country database for audit GeoIP; undefined: none. */
  readonly geoipDb: string | undefined;
  /**
   * The proxies whose X-Forwarded-For and geo headers are believed (`TRUST_PROXY`: IP addresses
   * and CIDRs, comma-separated); empty: none, the client IP is the socket's peer (src/http/proxy.ts).
   */
  readonly trustProxy: readonly string[];
  /** Signed PDFs larger than this are sent as a download link instead of an attachment. */
  readonly mailAttachmentMaxBytes: number;
  /** How long one sealing may take before it fails for good. */
  readonly finalizeTimeoutMs: number;
  readonly limits: AbuseLimits;
  readonly timeouts: ServerTimeouts;
  /** Mails handed to the mailer per second by each instance (a bulk send's 10,000 invitations go out steadily). */
  readonly mailRatePerSecond: number;
  /** Mails being handed to the SMTP server at once, per instance (one connection each). */
  readonly mailConnections: number;
  /**
   * PAdES level of sealed PDFs and the RFC 3161 authority it uses (B-T and above need one):
   * PADES_LEVEL, TSA_URL, TSA_USERNAME, TSA_PASSWORD.
   */
  readonly longTerm: {
    readonly level: 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
    readonly tsa: {
      readonly url: string;
      readonly username?: string;
      readonly password?: string;
    } | null;
  };
  /** B-LTA documents get a fresh document timestamp this many days before their last one's certificate expires. */
  readonly timestampRenewDays: number;
  /** Metrics token, lingering close, verify queues (config-exposure.ts). */
  readonly exposure: ExposureConfig;
  /** SMS_URL, SMS_SECRET: where codes by SMS go (config-sms.ts). */
  readonly sms: SmsConfig;
}

export { ConfigError };
export type { ServerTimeouts };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  if (!Value.Check(EnvSchema, picked)) {
    const problems = [...Value.Errors(EnvSchema, picked)].map(
      (e) => `${e.instancePath.slice(1) || 'env'}: ${e.message}`,
    );
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const e = picked as Static<typeof EnvSchema>;
  const port = Number(e.PORT ?? 3000);
  const dataDir = path.resolve(e.DATA_DIR ?? './data');
  const driver = e.STORAGE ?? 'local';
  if (driver === 's3' && !e.S3_BUCKET) throw new ConfigError('STORAGE=s3 needs S3_BUCKET');
  let databaseUrl = e.DATABASE_URL;
  if (databaseUrl?.startsWith('sqlite://')) databaseUrl = undefined;
  const level = e.PADES_LEVEL ?? (e.TSA_URL ? 'B-LTA' : 'B-B');
  if (level !== 'B-B' && !e.TSA_URL)
    throw new ConfigError(
      `PADES_LEVEL=${level} needs TSA_URL (an RFC 3161 time-stamping authority)`,
    );
  const s3: S3Access = {
    region: e.S3_REGION ?? 'us-east-1',
    endpoint: e.S3_ENDPOINT,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true' || e.S3_FORCE_PATH_STYLE === '1',
  };
  const config: Config = {
    port,
    host: e.HOST ?? '0.0.0.0',
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl,
    databasePoolSize: Number(e.DATABASE_POOL_SIZE ?? 10),
    storage:
      driver === 's3'
        ? { driver: 's3', ...s3, bucket: e.S3_BUCKET!, publicEndpoint: e.S3_PUBLIC_ENDPOINT }
        : { driver: 'local', root: path.join(dataDir, 'files') },
    s3,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? 'Signet <no-reply@signet.local>',
    mailSpoolDir: path.join(dataDir, 'mail'),
    production: e.NODE_ENV === 'production',
    webhookAllowedHosts: (e.WEBHOOK_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    webhookRetrySchedule: parseSchedule(e.WEBHOOK_RETRY_SCHEDULE ?? '1m,5m,30m,2h,5h,10h,18h,24h'),
    webhookTimeoutMs: Number(e.WEBHOOK_TIMEOUT_MS ?? 10_000),
    webhookLogDays: Number(e.WEBHOOK_LOG_DAYS ?? 30),
    deletedRetentionDays: Number(e.DELETED_RETENTION_DAYS ?? 30),
    sealingRetrySchedule: parseSchedule(
      e.SEALING_RETRY_SCHEDULE ?? '10s,1m,5m,30m',
      'SEALING_RETRY_SCHEDULE',
    ),
    secretKey: e.SECRET_KEY,
    signingCertP12: e.SIGNING_CERT_P12,
    signingCertPassword: e.SIGNING_CERT_PASSWORD,
    redisUrl: e.REDIS_URL,
    rateLimitPerMinute: Number(e.RATE_LIMIT_PER_MINUTE ?? 600),
    logLevel: e.LOG_LEVEL ?? 'info',
    workers: (e.WORKERS ?? 'on') === 'on',
    perfOff: new Set((e.PERF_OFF ?? '').split(',').filter(Boolean) as PerfMechanism[]),
    geoipDb: e.GEOIP_DB,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    mailAttachmentMaxBytes: Number(e.MAIL_ATTACHMENT_MAX_BYTES ?? 10 * 1024 * 1024),
    finalizeTimeoutMs: Number(e.FINALIZE_TIMEOUT_MS ?? 120_000),
    limits: {
      perTokenPerMinute: Number(e.RATE_LIMIT_TOKEN_PER_MINUTE ?? 120),
      authFailuresPerMinute: Number(e.AUTH_FAILURES_PER_MINUTE ?? 20),
      campaignSubmissionsPerHour: Number(e.CAMPAIGN_SUBMISSIONS_PER_HOUR ?? 1000),
      addressSubmissionsPerHour: Number(e.ADDRESS_SUBMISSIONS_PER_HOUR ?? 10),
      campaignOtpMailsPerHour: Number(e.CAMPAIGN_OTP_MAILS_PER_HOUR ?? 500),
      addressOtpMailsPerHour: Number(e.ADDRESS_OTP_MAILS_PER_HOUR ?? 10),
      identityAttempts: Number(e.IDENTITY_MAX_ATTEMPTS ?? 3),
    },
    timeouts: {
      headersMs: Number(e.HEADERS_TIMEOUT_MS ?? 10_000),
      requestMs: Number(e.REQUEST_TIMEOUT_MS ?? 300_000),
      keepAliveMs: Number(e.KEEP_ALIVE_TIMEOUT_MS ?? 5_000),
      idleMs: Number(e.IDLE_TIMEOUT_MS ?? 30_000),
    },
    mailRatePerSecond: Number(e.MAIL_RATE_PER_SECOND ?? 10),
    mailConnections: Number(e.MAIL_CONNECTIONS ?? 10),
    longTerm: {
      level,
      tsa: e.TSA_URL
        ? { url: e.TSA_URL, username: e.TSA_USERNAME, password: e.TSA_PASSWORD }
        : null,
    },
    timestampRenewDays: Number(e.TIMESTAMP_RENEW_DAYS ?? 90),
    exposure: exposureConfig(e),
    sms: smsConfig(e, dataDir, e.NODE_ENV === 'production'),
  };
  return Object.freeze(config);
}
