import os from 'node:os';
import { Type } from 'typebox';

/*
 * The settings that bound what an outsider can make one instance do or see (docs/security.md),
 * part of config.ts's one schema: loadConfig reads them with the rest of the environment and
 * calls `exposureConfig` on the values it picked; nothing here reads the environment itself.
 */

const Digits = Type.String({ pattern: '^[0-9]{1,9}$' });

export const ExposureEnv = {
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, maxLength: 200, pattern: '^\\S+$' })),
  LINGER_TIMEOUT_MS: Type.Optional(Digits),
  PUBLIC_VERIFY_QUEUE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
  VERIFY_QUEUE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
};

export interface ExposureConfig {
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /**
   * How long a refused request's unread body is still read and thrown away so the client sees
   * the answer (http/lingering-close.ts).
   */
  readonly lingerMs: number;
  /**
   * Public checks (`/verify`, no key) in progress or waiting at once; more answer 503 `busy`.
   * By default half the cores (at least one): one on a 2-core machine.
   */
  readonly publicVerifyQueue: number;
  /** `POST /api/v1/verify` (with a key) in progress or waiting at once; more answer 503 `busy`. */
  readonly verifyQueue: number;
}

/**
 * The public checks one instance admits unless `PUBLIC_VERIFY_QUEUE` says otherwise: half the
 * cores, at least one. Their thread runs at the lowest priority, but receiving each 50 MB body
 * and the temporary disk are not, so a small machine admits one stranger's file at a time.
 */
const defaultPublicVerifyQueue = (cores: number) => Math.max(1, Math.floor(cores / 2));

export function exposureConfig(
  e: {
    [K in keyof typeof ExposureEnv]?: string;
  },
): ExposureConfig {
  return {
    metricsToken: e.METRICS_TOKEN,
    lingerMs: Number(e.LINGER_TIMEOUT_MS ?? 10_000),
    publicVerifyQueue: e.PUBLIC_VERIFY_QUEUE
      ? Number(e.PUBLIC_VERIFY_QUEUE)
      : defaultPublicVerifyQueue(os.availableParallelism()),
    verifyQueue: Number(e.VERIFY_QUEUE ?? 8),
  };
}
