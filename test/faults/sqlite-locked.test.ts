import http from 'node:http';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, dialectName, type TestDatabase } from '../helpers/database.ts';
import { waitFor } from '../webhooks/support.ts';
import { bootstrapKey } from './flow.ts';

/*
 * SQLite unavailable under a real server process: another process holds the database's write
 * lock past busy_timeout (as a backup tool or a shell left inside a transaction does). Writes
 * answer 503 database_unavailable (after one busy_timeout wait, then at once), reads keep working,
 * /readyz says the database is unreachable, and everything works again when the lock is released,
 * without a restart. (A read-only file is no test here: the suite may run as root.)
 */

let db: TestDatabase;
let server: ChildServer;
let holder: SQLite.Database | null = null;
afterAll(async () => {
  holder?.close();
  if (server?.process.exitCode === null)
    await terminate(server).catch(() => server.process.kill('SIGKILL'));
  await db?.drop();
});

/**
 * One request on a connection of its own. The server's event loop waits out busy_timeout once
 * (better-sqlite3 is synchronous); a keep-alive connection it closed as idle meanwhile could be
 * reused by a pooling client at that very moment and reset, which is not what this test is about.
 */
function call(
  method: string,
  url: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = http.request(`${server.url}${url}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const ready = () => call('GET', '/readyz', null);

describe.skipIf(dialectName !== 'sqlite')('SQLite write lock held by another process', () => {
  it('writes answer 503 database_unavailable, reads work, /readyz fails; all recovers when the lock goes', {
    timeout: 120_000,
  }, async () => {
    db = await createTestDatabase({ migrated: false });
    await db.handle.close();
    server = await serve(childEnv({ DATA_DIR: db.dataDir, PUBLIC_URL: 'http://localhost:3000' }));
    const key = bootstrapKey(server);
    const create = (name: string) => call('POST', '/api/v1/documents', key, { name });
    expect((await create('Before')).status).toBe(201);
    expect((await ready()).status).toBe(200);

    // Another process takes the write lock and keeps it.
    holder = new SQLite(path.join(db.dataDir, 'signet.db'));
    holder.exec('BEGIN IMMEDIATE');

    const timed = async (name: string) => {
      const started = performance.now();
      const res = await create(name);
      return { res, ms: Math.round(performance.now() - started) };
    };
    const first = await timed('During 1');
    expect(first.res.status).toBe(503);
    expect(first.res.body.error.code).toBe('database_unavailable');
    expect(first.res.headers['retry-after']).toBe('5');
    const second = await timed('During 2');
    expect(second.res.status).toBe(503);
    expect(second.res.body.error.code).toBe('database_unavailable');
    // The figures for the record (the first waits busy_timeout, 5 s; later ones do not wait).
    console.log(
      `SQLite locked: first write refused after ${first.ms} ms, the next after ${second.ms} ms`,
    );

    // Reads are served from the database as it was.
    const list = await call('GET', '/api/v1/documents?limit=10', key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { name: string }) => d.name)).toEqual(['Before']);
    const probe = await ready();
    expect(probe.status).toBe(503);
    expect(probe.body).toMatchObject({
      status: 'unavailable',
      database: 'unreachable',
      storage: 'ok',
    });

    // The lock goes away: no restart needed.
    holder.exec('ROLLBACK');
    holder.close();
    holder = null;
    await waitFor(async () => (await ready()).status === 200, '/readyz ok again', 20_000, 100);
    const after = await create('After');
    expect(after.status).toBe(201);
    // Nothing half-written by the refused requests.
    const names = (await call('GET', '/api/v1/documents?limit=10', key)).body.data.map(
      (d: { name: string }) => d.name,
    );
    expect(names).toEqual(['After', 'Before']);
    expect((await terminate(server)).code).toBe(0);
  });
});
