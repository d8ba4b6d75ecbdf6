import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The whole environment Signet reads, in one schema. `loadConfig` is the only place that
 * touches `process.env`; everything else receives the frozen result.
 */
const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String()),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DATA_DIR: Type.Optional(Type.String()),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(postgres|postgresql|sqlite)://' })),
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
  WEBHOOK_TIMEOUT_MS: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  SIGNING_CERT_P12: Type.Optional(Type.String()),
  SIGNING_CERT_PASSWORD: Type.Optional(Type.String()),
  REDIS_URL: Type.Optional(Type.String()),
  RATE_LIMIT_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  LOG_LEVEL: Type.Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  ),
  WORKERS: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  READ_CACHE: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])),
  GEOIP_DB: Type.Optional(Type.String()),
  TRUST_PROXY: Type.Optional(Type.String()),
  MAIL_ATTACHMENT_MAX_BYTES: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  /** `undefined` selects the embedded SQLite file under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly storage:
    | { readonly driver: 'local'; readonly root: string }
    | {
        readonly driver: 's3';
        readonly bucket: string;
        readonly region: string;
        readonly endpoint: string | undefined;
        readonly accessKeyId: string | undefined;
        readonly secretAccessKey: string | undefined;
        readonly forcePathStyle: boolean;
        /** Where upload clients reach the bucket, when not at `endpoint`; presigned URLs name it. */
        readonly publicEndpoint: string | undefined;
      };
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly mailSpoolDir: string;
  readonly production: boolean;
  readonly webhookAllowedHosts: readonly string[];
  /** Delays in milliseconds before retry 1..n. */
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly signingCertP12: string | undefined;
  readonly signingCertPassword: string | undefined;
  readonly redisUrl: string | undefined;
  readonly rateLimitPerMinute: number;
  readonly logLevel: string;
  /** Background workers (mail, webhook delivery, schedulers) run in this process. */
  readonly workers: boolean;
  /**
   * Answers of read routes and API keys kept in memory while the database is unchanged
   * (http/read-cache.ts); on PostgreSQL through its change notifications (db/pg-change-feed.ts).
   */
  readonly readCache: boolean;
  /** A MaxMind-format (.mmdb) city or country database for audit GeoIP; undefined: none. */
  readonly geoipDb: string | undefined;
  /**
   * Fastify's `trustProxy`: false (default), true (any proxy), a hop count, or a comma-separated
   * list of proxy IPs/CIDRs. When set, the client IP comes from X-Forwarded-For and GeoIP from the
   * proxy's headers (src/http/geo.ts).
   */
  readonly trustProxy: boolean | number | string;
  /** Signed PDFs larger than this are sent as a download link instead of an attachment. */
  readonly mailAttachmentMaxBytes: number;
}

/** `TRUST_PROXY`: unset/false/0 → off, true → any proxy, a number → hops, anything else → addresses/CIDRs. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true') return true;
  if (/^[0-9]+$/.test(v)) return Number(v);
  return v;
}

export class ConfigError extends Error {}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `1m,5m,30m` into milliseconds. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const match = DURATION.exec(part.trim());
    if (!match) throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE: "${part}" is not a duration such as 50ms, 5m or 2h`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  if (!Value.Check(EnvSchema, picked)) {
    const problems = [...Value.Errors(EnvSchema, picked)].map((e) => `${e.instancePath.slice(1) || 'env'}: ${e.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const e = picked as Static<typeof EnvSchema>;
  const port = Number(e.PORT ?? 3000);
  const dataDir = path.resolve(e.DATA_DIR ?? './data');
  const driver = e.STORAGE ?? 'local';
  if (driver === 's3' && !e.S3_BUCKET) throw new ConfigError('STORAGE=s3 needs S3_BUCKET');
  let databaseUrl = e.DATABASE_URL;
  if (databaseUrl?.startsWith('sqlite://')) databaseUrl = undefined;
  const config: Config = {
    port,
    host: e.HOST ?? '0.0.0.0',
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl,
    storage:
      driver === 's3'
        ? {
            driver: 's3',
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION ?? 'us-east-1',
            endpoint: e.S3_ENDPOINT,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true' || e.S3_FORCE_PATH_STYLE === '1',
            publicEndpoint: e.S3_PUBLIC_ENDPOINT,
          }
        : { driver: 'local', root: path.join(dataDir, 'files') },
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
    signingCertP12: e.SIGNING_CERT_P12,
    signingCertPassword: e.SIGNING_CERT_PASSWORD,
    redisUrl: e.REDIS_URL,
    rateLimitPerMinute: Number(e.RATE_LIMIT_PER_MINUTE ?? 600),
    logLevel: e.LOG_LEVEL ?? 'info',
    workers: (e.WORKERS ?? 'on') === 'on',
    readCache: (e.READ_CACHE ?? 'on') === 'on',
    geoipDb: e.GEOIP_DB,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    mailAttachmentMaxBytes: Number(e.MAIL_ATTACHMENT_MAX_BYTES ?? 10 * 1024 * 1024),
  };
  return Object.freeze(config);
}
