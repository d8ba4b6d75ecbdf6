import { isIP } from 'node:net';

/*
 * Parsers of single environment values that need more than a schema pattern; config.ts calls them
 * from loadConfig (and re-exports them), and they never read the environment themselves.
 */

export class ConfigError extends Error {}

/**
 * The performance mechanisms that can be switched off (PERF_OFF=a,b), so the benchmark measures
 * what each gains against the same server without it (`npm run bench -- switches`,
 * docs/performance.md).
 */
export const PERF_MECHANISMS = [
  'key-cache',
  'batched-creates',
  'named-statements',
  'mail-layout-cache',
  'bulk-groups',
  'lazy-schemas',
] as const;
export type PerfMechanism = (typeof PERF_MECHANISMS)[number];

/** Server timeouts, in milliseconds (slow senders cannot hold sockets). */
export interface ServerTimeouts {
  /** Until the request's headers are complete. */
  readonly headersMs: number;
  /** Until the whole request (body included) is received. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** A socket with no traffic at all for this long is closed. */
  readonly idleMs: number;
}

/**
 * `TRUST_PROXY`: addresses and CIDRs only. `true` or a hop count would believe whatever the client
 * put in X-Forwarded-For (and so forge the IP and location in the audit trail): refused here.
 */
export function parseTrustProxy(value: string | undefined): string[] {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false') return [];
  if (v === 'true' || /^[0-9]+$/.test(v)) {
    throw new ConfigError(
      `TRUST_PROXY=${v} would trust X-Forwarded-For from any client; name the proxies instead, e.g. TRUST_PROXY=10.0.0.5,10.1.0.0/16`,
    );
  }
  const entries = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const prefixOk =
      bits === undefined ||
      (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        `TRUST_PROXY: "${entry}" is not an IP address or CIDR (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)`,
      );
    }
  }
  return entries;
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `1m,5m,30m` into milliseconds. */
export function parseSchedule(text: string, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  return text.split(',').map((part) => {
    const match = DURATION.exec(part.trim());
    if (!match)
      throw new ConfigError(`${name}: "${part}" is not a duration such as 50ms, 5m or 2h`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}
