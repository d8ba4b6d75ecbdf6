import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate, type DbHandle } from '../../src/db/create-db.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { bootstrapDefaultOrg } from '../../src/modules/orgs/orgs.service.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { samplePdf } from '../helpers/factories.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * What Signet writes to disk is readable by its own user only: the data directory and every
 * directory under it 0700, the SQLite database (and its -wal file), the key, the generated
 * certificate, stored files and spooled mail 0600. Started as the server starts, on a data
 * directory that does not exist yet.
 */

let fresh: TestDatabase;
let dataDir: string;
let app: FastifyInstance;
let database: DbHandle;
beforeAll(async () => {
  // A fresh, empty database on PostgreSQL (never the shared one); on SQLite the server's own file.
  fresh = await createTestDatabase({ migrated: false });
  dataDir = path.join(fresh.dataDir, 'data');
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(fresh.url ? { DATABASE_URL: fresh.url } : {}),
  });
  database = openDatabase(config);
  await migrate(database.db);
  app = await buildApp({
    config,
    database,
    jobPollMs: 20,
    mailer: createMailer({
      smtpUrl: undefined,
      from: 'Signet <no-reply@signet.test>',
      spoolDir: config.mailSpoolDir,
      log: pino({ level: 'silent' }),
    }),
  });
  await app.ready();
});
afterAll(async () => {
  await app.jobs.stop();
  await app.close();
  await database.close();
  await fresh.drop();
});

const modeOf = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

/** Every path under `dir`, itself included. */
function walk(dir: string): string[] {
  return [
    dir,
    ...fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? walk(p) : [p];
    }),
  ];
}

describe('files Signet creates', () => {
  it('are 0600, in directories 0700', async () => {
    const created = await bootstrapDefaultOrg(database.db);
    const auth = { authorization: `Bearer ${created?.key}` };
    const doc = await app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: auth,
      payload: {
        name: 'Modes',
        signers: [{ name: 'M', email: 'm@example.test' }],
        fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 }],
      },
    });
    const id = doc.json().data.id;
    const ticket = await app.inject({
      method: 'POST',
      url: `/api/v1/documents/${id}/upload`,
      headers: auth,
      payload: { contentType: 'application/pdf' },
    });
    const upload = await app.inject({
      method: 'PUT',
      url: new URL(ticket.json().data.uploadUrl).pathname,
      headers: { 'content-type': 'application/pdf' },
      payload: await samplePdf(),
    });
    expect(upload.statusCode).toBe(200);
    expect(
      (await app.inject({ method: 'POST', url: `/api/v1/documents/${id}/send`, headers: auth }))
        .statusCode,
    ).toBe(200);
    await app.jobs.drain();

    const paths = walk(dataDir);
    expect(paths.some((p) => p.endsWith('.eml'))).toBe(true);
    expect(paths.some((p) => p.includes(`${path.sep}files${path.sep}`) && p.endsWith('.pdf'))).toBe(
      true,
    );
    expect(paths).toContain(path.join(dataDir, 'secret.key'));
    if (!testDatabaseUrl) {
      expect(paths).toContain(path.join(dataDir, 'signet.db'));
      expect(paths).toContain(path.join(dataDir, 'signet.db-wal'));
    }
    const wrong = paths
      .map((p) => ({
        p: path.relative(dataDir, p) || '.',
        mode: modeOf(p),
        dir: fs.statSync(p).isDirectory(),
      }))
      .filter(({ mode, dir }) => mode !== (dir ? '700' : '600'));
    expect(wrong).toEqual([]);
  });
});
