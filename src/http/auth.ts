import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CompiledQuery } from 'kysely';
import type { Dialect } from '../db/create-db.ts';
import type { Db } from '../db/database.ts';
import { AppError } from './errors.ts';

/** Every scope a key can carry. `all` on the CLI expands to this list. */
export const SCOPES = [
  'documents.read',
  'documents.create',
  'documents.write',
  'documents.send',
  'documents.delete',
  'folders.read',
  'folders.write',
  'templates.read',
  'templates.create',
  'templates.write',
  'templates.delete',
  'campaigns.read',
  'campaigns.create',
  'campaigns.update',
  'campaigns.delete',
  'webhooks.create',
  'webhooks.read',
  'webhooks.update',
  'webhooks.delete',
] as const;
export type Scope = (typeof SCOPES)[number];

export interface AuthContext {
  orgId: string;
  keyId: string;
  scopes: ReadonlySet<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** The scope a route requires; routes without one are public (health, docs, signed links). */
    scope?: Scope;
  }
}

export const KEY_PREFIX = 'sk_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new secret API key: `sk_` and 43 characters of base64url (32 random bytes). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const unauthorized = (message: string) =>
  new AppError('unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="signet"' });

/**
 * The key lookup runs on every authenticated request, so its SQL is written once per dialect
 * rather than built and compiled by the query builder each time.
 */
const KEY_LOOKUP: Record<Dialect, string> = {
  sqlite: 'select id, org_id, scopes from api_keys where key_hash = ? and revoked_at is null',
  postgres: 'select id, org_id, scopes from api_keys where key_hash = $1 and revoked_at is null',
};

/**
 * Authenticates every route that declares `config.scope`: the bearer key is hashed, looked up
 * (unrevoked), and must carry the scope. Sets `request.auth`.
 */
export function registerAuth(app: FastifyInstance, db: Db, dialect: Dialect): void {
  const lookup = KEY_LOOKUP[dialect];
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Send your API key as `Authorization: Bearer <key>`');
    const match = BEARER.exec(header);
    if (!match || !match[1].startsWith(KEY_PREFIX) || match[1].length > 200) {
      throw unauthorized('The Authorization header must be `Bearer sk_…`');
    }
    const { rows } = await db.executeQuery<{ id: string; org_id: string; scopes: string }>(CompiledQuery.raw(lookup, [hashKey(match[1])]));
    const row = rows[0];
    if (!row) throw unauthorized('The API key is unknown or revoked');
    const scopes = new Set<string>(JSON.parse(row.scopes) as string[]);
    request.auth = { orgId: row.org_id, keyId: row.id, scopes };
    if (!scopes.has(scope)) {
      throw new AppError('insufficient_scope', `This API key lacks the scope ${scope}`, [{ requiredScope: scope }]);
    }
  });
}

/** The authenticated caller of a scoped route (set by the onRequest hook). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'Not authenticated');
  return request.auth;
}
