/**
 * The naive reference implementation: what a developer writes in an afternoon with Fastify and
 * the same driver on the same database, as the drivers' documentation shows them: every
 * statement prepared once per process (better-sqlite3: `db.prepare` at start-up; pg: a named
 * query config, planned once per connection), no cache, no batching, no promise the driver does
 * not need. One plain handler per endpoint of read-mix (document detail, document list, document
 * create): hash the key, look it up, run the statements, `reply.send` the rows mapped to
 * camelCase. The bench loads it in turns with Signet and the bare server (bench/run.ts). Started
 * as its own process: `node --import tsx bench/naive.ts` with PORT and SQLITE_FILE or DATABASE_URL.
 */
import { hash, randomBytes } from 'node:crypto';
import Fastify, {
  type FastifyReply,
  type FastifyRequest,
  type RouteGenericInterface,
} from 'fastify';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { listName, SQL, type Name } from './naive-sql.ts';
type Row = Record<string, unknown>;

const camel = (row: Row): Row => {
  const out: Row = {};
  for (const [k, v] of Object.entries(row))
    out[k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = v;
  return out;
};
const ids = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const unauthorized = { error: { code: 'unauthorized', message: 'unknown key or scope' } };
const notFound = { error: { code: 'not_found', message: 'Document not found' } };
const bearer = (request: FastifyRequest) =>
  /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
const allowed = (row: Row | undefined, scope: string) =>
  row !== undefined && (JSON.parse(row.scopes as string) as string[]).includes(scope);

type ListQuery = { limit?: string; status?: string; search?: string };
/** The list statement's name and parameters for a query string. */
function listArgs(orgId: string, q: ListQuery): [Name, unknown[], number] {
  const limit = Math.min(100, Number(q.limit ?? 25));
  const params: unknown[] = [orgId];
  if (q.status) params.push(q.status);
  if (q.search) params.push(`%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  params.push(limit + 1);
  return [listName(Boolean(q.status), Boolean(q.search)), params, limit];
}
function listBody(rows: Row[], limit: number) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url')
      : null;
  return { data: page.map(camel), meta: { nextCursor, limit } };
}
const detailBody = (doc: Row, signers: Row[], fields: Row[], attachments: Row[]) => ({
  data: {
    ...camel(doc),
    signers: signers.map(camel),
    fields: fields.map(camel),
    attachments: attachments.map(camel),
  },
});
type CreateBody = { name: string; message?: string; signers?: { name: string; email: string }[] };
/** The create's statements in order, for one request (the deliveries come after `hooks`). */
function createRows(request: FastifyRequest<{ Body: CreateBody }>, orgId: string) {
  const now = new Date().toISOString();
  const id = ids('doc');
  const eventId = ids('evt');
  const { name, message = '', signers = [] } = request.body;
  return {
    id,
    now,
    body: { data: { id, name, status: 'draft', createdAt: now } },
    document: [id, orgId, name, name.toLowerCase(), message, now, now],
    signers: signers.map((s, position) => [ids('sgn'), id, s.name, s.email, position, now, now]),
    audit: [
      ids('aud'),
      orgId,
      id,
      `Document "${name}" created`,
      request.ip,
      request.headers['user-agent'] ?? '',
      now,
    ],
    event: [eventId, orgId, 'document.created', JSON.stringify({ id, name, status: 'draft' }), now],
    deliveries: (hooks: Row[]) =>
      hooks
        .filter((w) => (JSON.parse(w.events as string) as string[]).includes('document.created'))
        .map((h) => [ids('dlv'), orgId, h.id, eventId, now, now, now]),
  };
}

const app = Fastify({ logger: false });
type Get<T extends RouteGenericInterface> = FastifyRequest<T>;

if (process.env.DATABASE_URL) pgRoutes(process.env.DATABASE_URL);
else sqliteRoutes(process.env.SQLITE_FILE!);

/** better-sqlite3 as its README shows: statements prepared at start-up, synchronous handlers. */
function sqliteRoutes(file: string) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const st = Object.fromEntries(
    Object.entries(SQL).map(([n, text]) => [n, db.prepare(text)]),
  ) as Record<Name, SQLite.Statement>;
  const orgOf = (request: FastifyRequest, reply: FastifyReply, scope: string) => {
    const key = bearer(request);
    const row = key ? (st.key.get(hash('sha256', key, 'hex')) as Row | undefined) : undefined;
    if (allowed(row, scope)) return row!.org_id as string;
    reply.code(401).send(unauthorized);
    return undefined;
  };
  app.get('/api/v1/documents/:id', (request: Get<{ Params: { id: string } }>, reply) => {
    const orgId = orgOf(request, reply, 'documents.read');
    if (!orgId) return reply;
    const id = request.params.id;
    const doc = st.document.get(id, orgId) as Row | undefined;
    if (!doc) return reply.code(404).send(notFound);
    const all = (s: SQLite.Statement) => s.all(id) as Row[];
    return reply.send(detailBody(doc, all(st.signers), all(st.fields), all(st.attachments)));
  });
  app.get('/api/v1/documents', (request: Get<{ Querystring: ListQuery }>, reply) => {
    const orgId = orgOf(request, reply, 'documents.read');
    if (!orgId) return reply;
    const [name, params, limit] = listArgs(orgId, request.query);
    return reply.send(listBody(st[name].all(params) as Row[], limit));
  });
  const create = db.transaction((c: ReturnType<typeof createRows>, orgId: string) => {
    st.insertDocument.run(c.document);
    for (const s of c.signers) st.insertSigner.run(s);
    st.insertAudit.run(c.audit);
    st.insertEvent.run(c.event);
    for (const d of c.deliveries(st.hooks.all(orgId) as Row[])) st.insertDelivery.run(d);
  });
  app.post('/api/v1/documents', (request: Get<{ Body: CreateBody }>, reply) => {
    const orgId = orgOf(request, reply, 'documents.create');
    if (!orgId) return reply;
    const c = createRows(request, orgId);
    create.immediate(c, orgId);
    return reply.code(201).send(c.body);
  });
}

/** pg as its documentation shows: a pool, named query configs (prepared once per connection). */
function pgRoutes(url: string) {
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const text = Object.fromEntries(
    Object.entries(SQL).map(([n, s]) => {
      let i = 0;
      return [n, s.replace(/\?/g, () => `$${++i}`)];
    }),
  ) as Record<Name, string>;
  type Runner = Pick<pg.Pool, 'query'>;
  const run = async (on: Runner, name: Name, values: unknown[]) =>
    (await on.query({ name, text: text[name], values })).rows as Row[];
  const orgOf = async (request: FastifyRequest, reply: FastifyReply, scope: string) => {
    const key = bearer(request);
    const [row] = key ? await run(pool, 'key', [hash('sha256', key, 'hex')]) : [];
    if (allowed(row, scope)) return row.org_id as string;
    reply.code(401).send(unauthorized);
    return undefined;
  };
  app.get('/api/v1/documents/:id', async (request: Get<{ Params: { id: string } }>, reply) => {
    const orgId = await orgOf(request, reply, 'documents.read');
    if (!orgId) return reply;
    const id = request.params.id;
    const [doc] = await run(pool, 'document', [id, orgId]);
    if (!doc) return reply.code(404).send(notFound);
    const signers = await run(pool, 'signers', [id]);
    const fields = await run(pool, 'fields', [id]);
    const attachments = await run(pool, 'attachments', [id]);
    return reply.send(detailBody(doc, signers, fields, attachments));
  });
  app.get('/api/v1/documents', async (request: Get<{ Querystring: ListQuery }>, reply) => {
    const orgId = await orgOf(request, reply, 'documents.read');
    if (!orgId) return reply;
    const [name, params, limit] = listArgs(orgId, request.query);
    return reply.send(listBody(await run(pool, name, params), limit));
  });
  app.post('/api/v1/documents', async (request: Get<{ Body: CreateBody }>, reply) => {
    const orgId = await orgOf(request, reply, 'documents.create');
    if (!orgId) return reply;
    const c = createRows(request, orgId);
    const client = await pool.connect();
    try {
      await client.query('begin');
      await run(client, 'insertDocument', c.document);
      for (const s of c.signers) await run(client, 'insertSigner', s);
      await run(client, 'insertAudit', c.audit);
      await run(client, 'insertEvent', c.event);
      for (const d of c.deliveries(await run(client, 'hooks', [orgId])))
        await run(client, 'insertDelivery', d);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
    return reply.code(201).send(c.body);
  });
}

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
