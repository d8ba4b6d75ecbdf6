import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  api,
  childEnv,
  freePort,
  serve,
  terminate,
  type ChildServer,
} from '../helpers/child-server.ts';
import { bootstrapKey } from './flow.ts';
import { PrivatePostgres, privatePostgresMissing } from './private-postgres.ts';

/*
 * PostgreSQL restarted under load, with a private server started by the test (never the shared
 * one): while it is away, requests fail fast with 503 database_unavailable; once it is back,
 * requests succeed again, and Signet was never restarted.
 */

const missing = privatePostgresMissing();
if (missing) console.info(`PostgreSQL restart under load: skipped (${missing})`);

let pg: PrivatePostgres | undefined;
let server: ChildServer | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  if (server && server.process.exitCode !== null) console.log(server.output().slice(-3000));
  if (server) await terminate(server).catch(() => server!.process.kill('SIGKILL'));
  await pg?.destroy();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(missing !== null)('PostgreSQL restarted under load', () => {
  it('answers fast 503s while it is away and succeeds after, without a Signet restart', {
    timeout: 120_000,
  }, async () => {
    pg = await PrivatePostgres.start(await freePort());
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'signet-pgr-'));
    server = await serve(
      childEnv({ DATA_DIR: dataDir, DATABASE_URL: pg.url, RATE_LIMIT_PER_MINUTE: '1000000' }),
    );
    const key = bootstrapKey(server);
    const pid = server.process.pid;

    // Load: a few clients creating and reading documents in a loop, every answer recorded.
    const results: { status: number; code?: string; ms: number; at: number }[] = [];
    let running = true;
    const client = async (n: number) => {
      for (let i = 0; running; i++) {
        const started = Date.now();
        try {
          const res =
            i % 2 === 0
              ? await api(server!, key, 'POST', '/api/v1/documents', { name: `Load ${n}-${i}` })
              : await api(server!, key, 'GET', '/api/v1/documents?limit=5');
          results.push({
            status: res.status,
            code: res.body?.error?.code,
            ms: Date.now() - started,
            at: started,
          });
        } catch {
          results.push({ status: 0, ms: Date.now() - started, at: started });
        }
      }
    };
    const load = Promise.all([1, 2, 3, 4].map(client));
    await new Promise((r) => setTimeout(r, 1500));

    const downAt = Date.now();
    pg.stopServer();
    await new Promise((r) => setTimeout(r, 3000));
    const readyWhileDown = await fetch(`${server.url}/readyz`);
    expect(readyWhileDown.status).toBe(503);
    expect(await readyWhileDown.json()).toMatchObject({ database: 'unreachable' });
    pg.startServer();
    const upAt = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    running = false;
    await load;

    const before = results.filter((r) => r.at + r.ms < downAt);
    const during = results.filter((r) => r.at > downAt + 200 && r.at + r.ms < upAt);
    const after = results.filter((r) => r.at > upAt + 1500);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
    // While away: 503 with the code, fast (no request waits for the server to come back).
    expect(during.length).toBeGreaterThan(0);
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(r.code).toBe('database_unavailable');
      expect(r.ms).toBeLessThan(3500);
    }
    // Back: everything succeeds, same process.
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
    expect(server.process.pid).toBe(pid);
    expect(server.process.exitCode).toBeNull();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
