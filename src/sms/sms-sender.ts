import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { SmsConfig } from '../config-sms.ts';
import type { SmsSender } from '../sms-types.ts';
import { deliveryHeaders } from '../http/delivery-signature.ts';

/*
 * Text messages (codes by SMS), by the driver SMS_URL names (src/config-sms.ts): your gateway,
 * Twilio's Messages API, or a spool directory. `send` resolves once the peer accepted the message,
 * throws SmsRejected when it refused it for good (a 4xx answer: retrying cannot help), and any
 * other error when a retry may (network, timeout, 5xx, 408, 429).
 */

/** The peer refused the message (a 4xx answer): retrying the same message cannot succeed. */
export class SmsRejected extends Error {}

const TIMEOUT_MS = 10_000;
/** The most of a peer's answer read (its error text goes into the audit trail, shortened). */
const ANSWER_MAX_BYTES = 8192;

async function readAnswer(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < ANSWER_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, ANSWER_MAX_BYTES).toString('utf8');
}

/** Throws the error an answer calls for; returns for a 2xx. */
async function settle(res: Response, peer: string, reason: (text: string) => string) {
  if (res.ok) {
    await res.body?.cancel().catch(() => {});
    return;
  }
  const why = `${peer} answered ${res.status}: ${reason(await readAnswer(res)).slice(0, 200)}`;
  const transient = res.status === 408 || res.status === 429 || res.status >= 500;
  throw transient ? new Error(why) : new SmsRejected(why);
}

/** Twilio's error answers carry `{code, message}`; a gateway's whatever it says, as text. */
const twilioReason = (text: string) => {
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
    return `${String(parsed.message ?? '')} (code ${String(parsed.code ?? '?')})`;
  } catch {
    return text;
  }
};

export function createSmsSender(config: SmsConfig, log: FastifyBaseLogger): SmsSender {
  if (config.driver === 'gateway') {
    return {
      async send({ to, body, idempotencyKey }) {
        const payload = JSON.stringify({ to, body, idempotencyKey });
        const headers = deliveryHeaders({
          secret: config.secret,
          deliveryId: idempotencyKey,
          eventType: 'sms.send',
          timestamp: Math.floor(Date.now() / 1000),
          body: payload,
        });
        const res = await fetch(config.url, {
          method: 'POST',
          headers: { ...headers, 'Idempotency-Key': idempotencyKey },
          body: payload,
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await settle(res, 'The SMS gateway', (text) => text);
      },
    };
  }
  if (config.driver === 'twilio') {
    const endpoint = `${config.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;
    const auth = Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64');
    return {
      async send({ to, body }) {
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: `Basic ${auth}`,
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/json',
          },
          body: new URLSearchParams({ To: to, From: config.from, Body: body }).toString(),
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await settle(res, 'Twilio', twilioReason);
      },
    };
  }
  return {
    async send({ to, body, idempotencyKey }) {
      // Messages hold codes: readable by Signet's user only. One file per message, so a retry
      // after a crash rewrites the same file rather than adding a second message.
      await fs.mkdir(config.spoolDir, { recursive: true, mode: 0o700 });
      const file = path.join(
        config.spoolDir,
        `${idempotencyKey.replace(/[^a-zA-Z0-9_-]/g, '')}.json`,
      );
      const createdAt = new Date().toISOString();
      await fs.writeFile(file, `${JSON.stringify({ to, body, createdAt }, null, 2)}\n`, {
        mode: 0o600,
      });
      log.info({ file }, 'sms spooled');
    },
  };
}
