import type { Db, Executor } from '../../db/database.ts';
import { generateKey, hashKey, SCOPES } from '../../http/auth.ts';
import { newId } from '../../ids.ts';
import { insertFirstOrganization } from './orgs.repository.ts';

interface CreatedKey {
  id: string;
  key: string;
  orgId: string;
  name: string;
  scopes: string[];
  createdAt: string;
}

export async function createOrganization(
  db: Db,
  input: { name: string; adminEmail: string },
  now = new Date(),
) {
  const org = {
    id: newId('org'),
    name: input.name,
    admin_email: input.adminEmail,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await db.insertInto('organizations').values(org).execute();
  return { id: org.id, name: org.name, adminEmail: org.admin_email, createdAt: org.created_at };
}

/** Parses `all` or a comma-separated list; unknown scopes are refused. */
export function parseScopes(text: string): string[] {
  if (text.trim() === 'all') return [...SCOPES];
  const scopes = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new Error(`Unknown scope(s): ${unknown.join(', ')}. Known: ${SCOPES.join(', ')}, or all`);
  if (scopes.length === 0) throw new Error('Give at least one scope, or all');
  return scopes;
}

/** Issues a key; the secret is returned here once and stored only as its SHA-256. */
export async function createApiKey(
  db: Executor,
  input: { orgId: string; scopes: string[]; name?: string },
  now = new Date(),
): Promise<CreatedKey> {
  const org = await db
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', input.orgId)
    .executeTakeFirst();
  if (!org) throw new Error(`No organization ${input.orgId}`);
  const key = generateKey();
  const row = {
    id: newId('key'),
    org_id: input.orgId,
    name: input.name ?? 'default',
    key_hash: hashKey(key),
    prefix: key.slice(0, 10),
    scopes: JSON.stringify(input.scopes),
    created_at: now.toISOString(),
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return {
    id: row.id,
    key,
    orgId: row.org_id,
    name: row.name,
    scopes: input.scopes,
    createdAt: row.created_at,
  };
}

export async function listOrganizations(db: Db) {
  const rows = await db
    .selectFrom('organizations')
    .select(['id', 'name', 'admin_email', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    adminEmail: r.admin_email,
    createdAt: r.created_at,
  }));
}

/**
 * The organization a CLI command acts on: the one given, or the only one there is (a fresh
 * install has just "Default"); with several, the caller must say which.
 */
export async function resolveOrgId(db: Db, given: string | undefined): Promise<string> {
  if (given) return given;
  const orgs = await db.selectFrom('organizations').select('id').limit(2).execute();
  if (orgs.length === 1) return orgs[0]!.id;
  throw new Error(
    orgs.length === 0
      ? 'There is no organization yet: create one with `signet org create`'
      : 'There are several organizations: choose one with --org (see `signet org list`)',
  );
}

/**
 * Issues a key in place of a lost or leaked one, in one transaction: `replace` is a key id, or a
 * key name such as "bootstrap" (every active key of that name in the organization). The new key
 * keeps the old one's name and, unless `scopes` is given, its scopes; the old ones stop working.
 */
export async function replaceApiKey(
  db: Db,
  input: { orgId: string; replace: string; scopes?: string[] },
  now = new Date(),
) {
  return db.transaction().execute(async (trx) => {
    const old = await trx
      .selectFrom('api_keys')
      .select(['id', 'name', 'scopes'])
      .where('org_id', '=', input.orgId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('id', '=', input.replace), eb('name', '=', input.replace)]))
      .execute();
    if (old.length === 0)
      throw new Error(`No active key ${input.replace} in organization ${input.orgId}`);
    const scopes = input.scopes ?? [
      ...new Set(old.flatMap((k) => JSON.parse(k.scopes) as string[])),
    ];
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: now.toISOString() })
      .where(
        'id',
        'in',
        old.map((k) => k.id),
      )
      .execute();
    const created = await createApiKey(
      trx,
      { orgId: input.orgId, scopes, name: old[0]!.name },
      now,
    );
    return { ...created, revoked: old.map((k) => k.id) };
  });
}

export async function listApiKeys(db: Db, orgId: string) {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: JSON.parse(r.scopes) as string[],
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}

export async function revokeApiKey(db: Db, keyId: string, now = new Date()): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * On the first start with an empty database, outside production: organization "Default" and
 * one key with every scope, returned so the caller prints it once.
 */
export async function bootstrapDefaultOrg(db: Db): Promise<CreatedKey | null> {
  return db.transaction().execute(async (trx) => {
    const orgId = newId('org');
    const created = await insertFirstOrganization(trx, {
      id: orgId,
      name: 'Default',
      adminEmail: 'admin@localhost',
      now: new Date().toISOString(),
    });
    if (!created) return null;
    return createApiKey(trx, { orgId, scopes: [...SCOPES], name: 'bootstrap' });
  });
}
