import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/http/auth.ts';
import {
  killLeftovers,
  newInstallation,
  runCli,
  startServe,
  type Installation,
} from './run-cli.ts';

// Every command runs the real `bin/signet.js` in a child process, like a user would.
const installations: Installation[] = [];
async function install(): Promise<Installation> {
  const inst = await newInstallation();
  installations.push(inst);
  return inst;
}
afterAll(async () => {
  killLeftovers();
  for (const inst of installations) await inst.remove();
});

const KEY = /sk_[A-Za-z0-9_-]{43}/g;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('signet org / key / migrate', () => {
  it('migrate creates the schema of an empty database', async () => {
    const inst = await install();
    const first = await runCli(inst, ['migrate', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ migrated: true });
    const handle = inst.open();
    try {
      const applied = await handle.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect((applied as { name: string }[]).map((r) => r.name)).toContain('0001-initial');
      const orgs = await sql<{ n: number }>`select count(*) as n from organizations`.execute(
        handle.db,
      );
      expect(Number(orgs.rows[0].n)).toBe(0);
    } finally {
      await handle.close();
    }
  }, 30_000);

  it('creates an organization and keys, lists keys without their secret, and revokes a key on a running server', async () => {
    const inst = await install();
    const org = await runCli(inst, [
      'org',
      'create',
      '--name',
      'Acme',
      '--admin-email',
      'a@acme.test',
      '--json',
    ]);
    expect(org.stderr).toBe('');
    expect(org.code).toBe(0);
    const orgJson = JSON.parse(org.stdout);
    expect(orgJson).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Acme' });

    const [created, unknown, all] = await Promise.all([
      runCli(inst, [
        'key',
        'create',
        '--org',
        orgJson.id,
        '--scopes',
        'documents.read,documents.create',
        '--name',
        'ci',
        '--json',
      ]),
      runCli(inst, [
        'key',
        'create',
        '--org',
        orgJson.id,
        '--scopes',
        'documents.read,documents.frobnicate',
        '--json',
      ]),
      runCli(inst, ['key', 'create', '--org', orgJson.id, '--scopes', 'all', '--json']),
    ]);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/),
      orgId: orgJson.id,
      scopes: ['documents.read', 'documents.create'],
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/Unknown scope\(s\): documents\.frobnicate/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).scopes).toEqual([...SCOPES]);

    const list = await runCli(inst, ['key', 'list', '--org', orgJson.id, '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(KEY);
    expect(list.stdout).not.toContain(key.key);
    const listed = JSON.parse(list.stdout).data;
    expect(listed).toHaveLength(2);
    const ci = listed.find((k: { id: string }) => k.id === key.id);
    expect(ci).toMatchObject({
      name: 'ci',
      scopes: ['documents.read', 'documents.create'],
      revokedAt: null,
    });
    expect(key.key.startsWith(ci.prefix)).toBe(true);
    expect(ci.prefix.length).toBeLessThan(16);

    // Keys live only as SHA-256 hashes: no column of api_keys holds a secret.
    const handle = inst.open();
    try {
      const rows = await handle.db.selectFrom('api_keys').selectAll().execute();
      expect(rows).toHaveLength(2);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(key.key);
      expect(dump).not.toMatch(KEY);
      expect(rows.find((r) => r.id === key.id)!.key_hash).toBe(sha256(key.key));
    } finally {
      await handle.close();
    }

    // A server on this installation prints no bootstrap key (the database has an organization).
    const server = await startServe(inst);
    try {
      const ok = await fetch(`${server.url}/api/v1/documents`, { headers: bearer(key.key) });
      expect(ok.status).toBe(200);
      const revoke = await runCli(inst, ['key', 'revoke', key.id]);
      expect(revoke.code).toBe(0);
      expect(revoke.stdout).toContain(key.id);
      const refused = await fetch(`${server.url}/api/v1/documents`, { headers: bearer(key.key) });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('unauthorized');
      expect(server.output().stdout).not.toMatch(KEY);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const revoked = inst.open();
    try {
      const row = await revoked.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', key.id)
        .executeTakeFirstOrThrow();
      expect(row.revoked_at).toMatch(/^\d{4}-/);
    } finally {
      await revoked.close();
    }
  }, 90_000);

  it('migrates once when several processes start on the same empty database at the same time', async () => {
    const inst = await install();
    const runs = await Promise.all(
      Array.from({ length: 8 }, () => runCli(inst, ['migrate', '--json'])),
    );
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const handle = inst.open();
    try {
      const applied = await handle.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      const names = (applied as { name: string }[]).map((r) => r.name);
      expect(names).toContain('0001-initial');
      expect(new Set(names).size).toBe(names.length);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('answers mistakes with exit code 2 and a message', async () => {
    const inst = await install();
    const results = await Promise.all([
      runCli(inst, ['org', 'create', '--name', 'No email']),
      runCli(inst, ['key', 'create', '--org', 'org_missing', '--scopes', 'documents.read']),
      runCli(inst, ['key', 'create', '--org', 'org_x', '--frobnicate']),
    ]);
    const [noEmail, noOrg, badFlag] = results;
    expect(noEmail.stderr).toContain('--admin-email is required');
    expect(noOrg.stderr).toContain('No organization org_missing');
    expect(badFlag.stderr).toContain("Unknown option '--frobnicate'");
    for (const r of results) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});

describe('signet serve bootstrap', () => {
  it('prints one all-scopes key on the first start of an empty installation, and none on the next', async () => {
    const inst = await install();
    const first = await startServe(inst);
    let key: string;
    try {
      const { stdout, stderr } = first.output();
      const keys = stdout.match(KEY) ?? [];
      expect(keys).toHaveLength(1);
      key = keys[0]!;
      expect(stderr).not.toContain(key);
      // The key is in the banner only, never in a structured log line.
      for (const line of stdout.split('\n').filter((l) => l.startsWith('{')))
        expect(line).not.toContain(key);
      const res = await fetch(`${first.url}/api/v1/documents`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'From the bootstrap key' }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-limit')).toBe('600');
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startServe(inst);
    try {
      expect(second.output().stdout).not.toMatch(KEY);
      const res = await fetch(`${second.url}/api/v1/documents`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect((await res.json()).data.map((d: { name: string }) => d.name)).toEqual([
        'From the bootstrap key',
      ]);
    } finally {
      expect(await second.stop()).toBe(0);
    }

    const handle = inst.open();
    try {
      const rows = await handle.db.selectFrom('api_keys').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].key_hash).toBe(sha256(key));
      expect(JSON.stringify(rows)).not.toContain(key);
      expect(JSON.parse(rows[0].scopes)).toEqual([...SCOPES]);
    } finally {
      await handle.close();
    }
  }, 90_000);

  it('prints no key and creates no organization in production', async () => {
    const inst = await install();
    const server = await startServe(inst, { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(64) });
    try {
      expect(server.output().stdout).not.toMatch(KEY);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const handle = inst.open();
    try {
      expect(await handle.db.selectFrom('organizations').selectAll().execute()).toEqual([]);
      expect(await handle.db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
    } finally {
      await handle.close();
    }
  }, 60_000);
});
