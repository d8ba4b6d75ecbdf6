/**
 * The naive reference implementation: what a developer writes in an afternoon with Fastify and
 * the same driver on the same database, no caches, no batching, no named statements. One plain
 * handler per endpoint of read-mix (document detail, document list, document create): hash the
 * key, look it up, run the queries, `reply.send` the rows mapped to camelCase. The bench loads it
 * in turns with Signet and the bare server (bench/run.ts). Started as its own process:
 * `node --import tsx bench/naive.ts` with PORT and SQLITE_FILE or DATABASE_URL.
 */
import { hash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import SQLite from 'better-sqlite3';
import pg from 'pg';

type Row = Record<string, unknown>;
interface Store {
  all(sqlText: string, params: unknown[]): Promise<Row[]>;
  /** Runs `work` in a transaction; `run` executes inside it. */
  transaction(
    work: (run: (sqlText: string, params: unknown[]) => Promise<Row[]>) => Promise<void>,
  ): Promise<void>;
}

function sqliteStore(file: string): Store {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // better-sqlite3 is used as its README shows: db.prepare(sql) then .all()/.run().
  const exec = (sqlText: string, params: unknown[]) => {
    const stmt = db.prepare(sqlText);
    return stmt.reader ? (stmt.all(params) as Row[]) : (stmt.run(params), []);
  };
  return {
    all: async (sqlText, params) => exec(sqlText, params),
    async transaction(work) {
      // Synchronous driver: the transaction's statements run back to back, nothing interleaves.
      exec('begin immediate', []);
      try {
        await work(async (s, p) => exec(s, p));
        exec('commit', []);
      } catch (err) {
        exec('rollback', []);
        throw err;
      }
    },
  };
}

function pgStore(url: string): Store {
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    all: async (sqlText, params) => (await pool.query(toPg(sqlText), params)).rows,
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await work(async (s, p) => (await client.query(toPg(s), p)).rows);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** `?` placeholders to `$n`. */
function toPg(sqlText: string): string {
  let n = 0;
  return sqlText.replace(/\?/g, () => `$${++n}`);
}

const camel = (row: Row): Row => {
  const out: Row = {};
  for (const [k, v] of Object.entries(row))
    out[k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = v;
  return out;
};

const store = process.env.DATABASE_URL
  ? pgStore(process.env.DATABASE_URL)
  : sqliteStore(process.env.SQLITE_FILE!);
const app = Fastify({ logger: false });

async function auth(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: string,
): Promise<string | undefined> {
  const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const rows = key
    ? await store.all(
        'select org_id, scopes from api_keys where key_hash = ? and revoked_at is null',
        [hash('sha256', key, 'hex')],
      )
    : [];
  if (rows.length === 0 || !(JSON.parse(rows[0].scopes as string) as string[]).includes(scope)) {
    reply.code(401).send({ error: { code: 'unauthorized', message: 'unknown key or scope' } });
    return undefined;
  }
  return rows[0].org_id as string;
}

app.get<{ Params: { id: string } }>('/api/v1/documents/:id', async (request, reply) => {
  const orgId = await auth(request, reply, 'documents.read');
  if (!orgId) return reply;
  const [doc] = await store.all(
    'select * from documents where id = ? and org_id = ? and deleted_at is null',
    [request.params.id, orgId],
  );
  if (!doc)
    return reply.code(404).send({ error: { code: 'not_found', message: 'Document not found' } });
  const id = request.params.id;
  const signers = await store.all('select * from signers where document_id = ? order by position', [
    id,
  ]);
  const fields = await store.all(
    'select * from fields where document_id = ? order by created_at, id',
    [id],
  );
  const attachments = await store.all(
    'select * from attachments where document_id = ? order by created_at, id',
    [id],
  );
  return reply.send({
    data: {
      ...camel(doc),
      signers: signers.map(camel),
      fields: fields.map(camel),
      attachments: attachments.map(camel),
    },
  });
});

app.get<{ Querystring: { limit?: string; status?: string; search?: string } }>(
  '/api/v1/documents',
  async (request, reply) => {
    const orgId = await auth(request, reply, 'documents.read');
    if (!orgId) return reply;
    const limit = Math.min(100, Number(request.query.limit ?? 25));
    const where = ['d.org_id = ?', 'd.deleted_at is null'];
    const params: unknown[] = [orgId];
    if (request.query.status) where.push('d.status = ?'), params.push(request.query.status);
    if (request.query.search)
      where.push("d.search_name like ? escape '\\'"),
        params.push(`%${request.query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const rows = await store.all(
      `select d.*, (select count(*) from signers s where s.document_id = d.id) as signer_count,
            (select count(*) from fields f where f.document_id = d.id) as field_count
     from documents d where ${where.join(' and ')} order by d.created_at desc, d.id desc limit ?`,
      [...params, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > limit && last
        ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url')
        : null;
    return reply.send({ data: page.map(camel), meta: { nextCursor, limit } });
  },
);

app.post<{ Body: { name: string; message?: string; signers?: { name: string; email: string }[] } }>(
  '/api/v1/documents',
  async (request, reply) => {
    const orgId = await auth(request, reply, 'documents.create');
    if (!orgId) return reply;
    const now = new Date().toISOString();
    const id = `doc_${randomBytes(12).toString('hex')}`;
    const { name, message = '', signers = [] } = request.body;
    await store.transaction(async (run) => {
      await run(
        `insert into documents (id, org_id, name, search_name, status, signing_type, message, require_kyc, file_size, document_hash, signed_file_hash, created_at, updated_at)
       values (?, ?, ?, ?, 'draft', 'sequential', ?, 0, 0, '', '', ?, ?)`,
        [id, orgId, name, name.toLowerCase(), message, now, now],
      );
      for (const [position, s] of signers.entries()) {
        await run(
          `insert into signers (id, document_id, name, email, role, position, status, created_at, updated_at) values (?, ?, ?, ?, 'signer', ?, 'pending', ?, ?)`,
          [`sgn_${randomBytes(12).toString('hex')}`, id, s.name, s.email, position, now, now],
        );
      }
      await run(
        `insert into audit_logs (id, org_id, document_id, action, details, ip_address, user_agent, geo_city, geo_country, created_at) values (?, ?, ?, 'document.created', ?, ?, ?, '', '', ?)`,
        [
          `aud_${randomBytes(12).toString('hex')}`,
          orgId,
          id,
          `Document "${name}" created`,
          request.ip,
          request.headers['user-agent'] ?? '',
          now,
        ],
      );
      const eventId = `evt_${randomBytes(12).toString('hex')}`;
      await run('insert into events (id, org_id, type, data, created_at) values (?, ?, ?, ?, ?)', [
        eventId,
        orgId,
        'document.created',
        JSON.stringify({ id, name, status: 'draft' }),
        now,
      ]);
      const hooks = await run(
        `select id, events from webhooks where org_id = ? and status = 'active'`,
        [orgId],
      );
      for (const h of hooks.filter((w) =>
        (JSON.parse(w.events as string) as string[]).includes('document.created'),
      )) {
        await run(
          `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at, updated_at) values (?, ?, ?, ?, 'document.created', 'pending', 0, ?, ?, ?)`,
          [`dlv_${randomBytes(12).toString('hex')}`, orgId, h.id, eventId, now, now, now],
        );
      }
    });
    return reply.code(201).send({ data: { id, name, status: 'draft', createdAt: now } });
  },
);

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
