import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  type AddressPolicy,
  BlockedAddressError,
  guardedLookup,
  parseIp,
  urlHost,
} from './ssrf.ts';

/** The outcome of one HTTP attempt, as stored in `webhook_attempts`. */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Null exactly when the attempt succeeded. */
  error: string | null;
  /** First 1 KB of the response body. */
  responseBody: string | null;
  durationMs: number;
}

const BODY_KEEP_BYTES = 1024;

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** A sentence a webhook owner can act on, without internals (no resolved addresses, no stack). */
function describeError(err: NodeJS.ErrnoException): string {
  if (err instanceof BlockedAddressError) return err.message;
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'Connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA')
    return `DNS lookup failed (${code})`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'Connection reset by the receiver';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'Host unreachable';
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return 'Invalid HTTP response';
  if (TLS_CODES.test(code)) return `TLS error (${code})`;
  return `Request failed${code ? ` (${code})` : ''}`;
}

function outcome(
  statusCode: number,
  body: Buffer,
  location: string | undefined,
): Omit<AttemptResult, 'durationMs'> {
  const responseBody =
    body.length > 0 ? new TextDecoder('utf-8', { fatal: false }).decode(body) : null;
  if (statusCode >= 200 && statusCode < 300)
    return { ok: true, statusCode, error: null, responseBody };
  const error =
    statusCode >= 300 && statusCode < 400
      ? `Redirect (HTTP ${statusCode}) not followed${location ? `: Location ${location.slice(0, 200)}` : ''}`
      : `HTTP ${statusCode}`;
  return { ok: false, statusCode, error, responseBody };
}

/**
 * POSTs webhook deliveries over keep-alive connections. Every new connection resolves its host
 * through the blocked-address check, and IP-literal hosts are checked before connecting, so
 * the address a request reaches is always one the rule allowed. Redirects are never followed.
 */
export class WebhookSender {
  private readonly lookup: net.LookupFunction;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    private readonly policy: AddressPolicy,
    private readonly timeoutMs: number,
    maxSocketsPerHost: number,
  ) {
    this.lookup = guardedLookup(policy);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: maxSocketsPerHost });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: maxSocketsPerHost });
  }

  send(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: Math.round(performance.now() - started) });
      };
      const fail = (error: string) =>
        finish({ ok: false, statusCode: null, error, responseBody: null });

      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return fail('Invalid URL');
      }
      const host = urlHost(url);
      if (parseIp(host)) {
        const reason = this.policy.refuse(host, host);
        if (reason) return fail(new BlockedAddressError(reason).message);
      }
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
      });

      let status: number | null = null;
      let location: string | undefined;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      const decide = () => finish(outcome(status!, Buffer.concat(kept), location));

      // One deadline for the whole exchange. The status decides; a body still arriving then is cut off.
      timer = setTimeout(() => {
        if (status !== null) decide();
        else fail(`Timed out after ${this.timeoutMs} ms`);
        request.destroy();
      }, this.timeoutMs);

      request.on('error', (err) => (status !== null ? decide() : fail(describeError(err))));
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        location = response.headers.location;
        // The rest of the body is read and dropped so the connection can be reused.
        response.on('data', (chunk: Buffer) => {
          if (keptBytes < BODY_KEEP_BYTES) {
            const part = chunk.subarray(0, BODY_KEEP_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
        });
        response.on('end', decide);
        response.on('aborted', decide);
        response.on('error', decide);
      });
      request.end(body);
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
