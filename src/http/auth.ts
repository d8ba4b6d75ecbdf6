import { hash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hookRoutes } from './route-hooks.ts';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { AppError } from './errors.ts';
import { CredentialError } from './credential-error.ts';

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
  'organization.read',
  'organization.write',
  'organization.export',
] as const;
type Scope = (typeof SCOPES)[number];

/** The `scope` of a route any valid key may call, whatever scopes it carries. */
export const ANY_KEY = 'any';

interface AuthContext {
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
    scope?: Scope | typeof ANY_KEY;
  }
}

const KEY_PREFIX = 'sk_';

/** SHA-256 in hex (the one-shot `crypto.hash`: a third of the cost of a Hash object, on every request). */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A new secret API key: `sk_` and 43 characters of base64url (32 random bytes). */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="signet"' };
/** No key sent at all: a misconfigured client, not a failed authentication of a key. */
const unauthorized = (message: string) =>
  new AppError('unauthorized', message, undefined, CHALLENGE);
/** A key that does not check out: counted against the address (http/credential-error.ts). */
const refusedKey = (message: string) =>
  new CredentialError('unauthorized', message, undefined, CHALLENGE);

type KeyRow = { id: string; org_id: string; scopes: string };

/** The key lookup runs on every authenticated request: built once (db/prepared.ts). */
const keyByHash = prepared<{ hash: string }, KeyRow>((db, p) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'org_id', 'scopes'])
    .where('key_hash', '=', p.hash)
    .where('revoked_at', 'is', null),
);

/**
 * Authenticates every route that declares `config.scope`: the bearer key is hashed, looked up
 * (unrevoked), and must carry the scope. Sets `request.auth`. On PostgreSQL a key found earlier
 * is taken from memory while no write has touched the key tables since, here or through another
 * connection (`keysMark`, db/pg-change-feed.ts): a revocation is such a write, so it takes effect
 * at once here, and as soon as its notification reaches another instance. Without a mark (SQLite,
 * where the lookup costs no more than keeping a mark did, or a feed not known to work), every
 * request looks its key up.
 */
export function registerAuth(app: FastifyInstance, db: Db, keysMark?: () => string | null): void {
  const known = new Map<string, { mark: string; auth: AuthContext }>();
  const lookup = async (keyHash: string, mark: string | null): Promise<AuthContext | undefined> => {
    const { rows } = await keyByHash.execute(db, { hash: keyHash });
    const row = rows[0];
    if (!row) return undefined;
    const auth: AuthContext = {
      orgId: row.org_id,
      keyId: row.id,
      scopes: new Set<string>(JSON.parse(row.scopes) as string[]),
    };
    if (mark !== null) {
      if (known.size >= 1000) known.delete(known.keys().next().value as string);
      known.set(keyHash, { mark, auth });
    }
    return auth;
  };
  app.decorateRequest('auth', null);
  // A callback hook, not an async one: a key already known answers without a promise.
  hookRoutes(
    app,
    'onRequest',
    (route) => route.config?.scope !== undefined,
    (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
      const scope = request.routeOptions.config.scope!;
      const header = request.headers.authorization;
      if (!header) return done(unauthorized('Send your API key as `Authorization: Bearer <key>`'));
      const match = BEARER.exec(header);
      if (!match || !match[1].startsWith(KEY_PREFIX) || match[1].length > 200) {
        return done(refusedKey('The Authorization header must be `Bearer sk_…`'));
      }
      const keyHash = hashKey(match[1]);
      const mark = keysMark ? keysMark() : null;
      const hit = mark === null ? undefined : known.get(keyHash);
      if (hit && hit.mark === mark) return accept(request, scope, hit.auth, done);
      lookup(keyHash, mark).then((auth) => accept(request, scope, auth, done), done);
    },
  );
}

// Module level, not a closure per request (the TypeScript loader names every named closure it creates).
function accept(
  request: FastifyRequest,
  scope: Scope | typeof ANY_KEY,
  auth: AuthContext | undefined,
  done: (err?: Error) => void,
): void {
  if (!auth) {
    done(refusedKey('The API key is unknown or revoked'));
    return;
  }
  request.auth = auth;
  if (scope !== ANY_KEY && !auth.scopes.has(scope)) {
    done(
      new AppError('insufficient_scope', `This API key lacks the scope ${scope}`, [
        { requiredScope: scope },
      ]),
    );
    return;
  }
  done();
}

/** The authenticated caller of a scoped route (set by the onRequest hook). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'Not authenticated');
  return request.auth;
}
