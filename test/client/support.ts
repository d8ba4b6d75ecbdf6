import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { freePort } from '../helpers/child-server.ts';

export interface LiveSignet {
  t: TestApp;
  /** `http://127.0.0.1:<port>`, also the server's PUBLIC_URL (upload URLs point here). */
  url: string;
  close(): Promise<void>;
}

/** A real Signet (fresh database, SQLite or PostgreSQL by env) listening on 127.0.0.1, its webhook worker running. */
export async function startLiveSignet(env: Record<string, string> = {}): Promise<LiveSignet> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({
    env: {
      PUBLIC_URL: url,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
      ...env,
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  t.app.jobs.start();
  t.app.deliveries.start();
  return {
    t,
    url,
    close: async () => {
      await t.app.deliveries.stop();
      await t.close();
    },
  };
}

/** What the proxy does with one request: pass it on, pass it on and cut the connection before answering, or answer itself. */
export type ProxyAction =
  | 'forward'
  | 'drop-response'
  | { status: number; headers?: Record<string, string>; body?: string };

export interface Attempt {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Status the upstream answered (forwarded and dropped requests), or the proxy's own. */
  status: number;
}

export interface FlakyProxy {
  url: string;
  attempts: Attempt[];
  close(): Promise<void>;
}

/**
 * A real HTTP proxy in front of `target` on 127.0.0.1, deciding per request (0-based index) what
 * to do. 'drop-response' lets the request run on the server, waits for its whole answer, then
 * destroys the client's socket: the client sees the connection reset with no response, as when a
 * network drops an answer in flight.
 */
export async function startFlakyProxy(
  target: string,
  decide: (index: number, attempt: Attempt) => ProxyAction,
): Promise<FlakyProxy> {
  const attempts: Attempt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt: Attempt = {
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: body.toString('utf8'),
        status: 0,
      };
      const action = decide(attempts.push(attempt) - 1, attempt);
      if (typeof action === 'object') {
        attempt.status = action.status;
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(action.body ?? '{"error":{"code":"unavailable","message":"proxy says no"}}');
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      void fetch(new URL(req.url ?? '/', target), {
        method: req.method,
        headers: headers as Record<string, string>,
        body: body.length > 0 ? body : undefined,
      })
        .then(async (upstream) => {
          const payload = Buffer.from(await upstream.arrayBuffer());
          attempt.status = upstream.status;
          if (action === 'drop-response') {
            req.socket.destroy();
            return;
          }
          const out: Record<string, string> = {};
          upstream.headers.forEach((v, k) => {
            if (
              ![
                'content-encoding',
                'transfer-encoding',
                'connection',
                'keep-alive',
                'content-length',
              ].includes(k)
            )
              out[k] = v;
          });
          res.writeHead(upstream.status, out);
          res.end(payload);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
