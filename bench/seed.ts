import path from 'node:path';
import SQLite from 'better-sqlite3';
import { PostgresAdapter, sql } from 'kysely';
import pg from 'pg';
import { SCOPES } from '../src/http/auth.ts';
import type { Db } from '../src/db/database.ts';
import { newId } from '../src/ids.ts';
import { createApiKey, createOrganization } from '../src/modules/orgs/orgs.service.ts';
import { type BenchDatabase, openBenchDatabase } from './harness.ts';

export interface SeededOrg {
  id: string;
  key: string;
  /** Its documents' ids, oldest first. */
  documents: string[];
}

export interface Seeded {
  orgs: SeededOrg[];
  /** The first organization's key (the cache-hit scenarios). */
  key: string;
  /** A document of the first organization with 2 signers and 3 fields. */
  detailId: string;
}

/** Where the rows go: the same file or database the server opens, through its own driver. */
export type SeedTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

const WORDS = [
  'Consulting',
  'Agreement',
  'NDA',
  'Lease',
  'Offer',
  'Invoice',
  'Contract',
  'Renewal',
  'Order',
  'Policy',
  'Quote',
  'Amendment',
];
export const SEARCH_WORDS = WORDS.map((w) => w.toLowerCase());
/** Statuses of seeded documents, in proportion (most are drafts or done). */
const STATUSES = [
  'draft',
  'draft',
  'draft',
  'pending',
  'completed',
  'completed',
  'cancelled',
  'expired',
  'declined',
  'pending',
];

const DOCUMENT_COLUMNS = [
  'id',
  'org_id',
  'name',
  'search_name',
  'status',
  'signing_type',
  'message',
  'email_subject',
  'email_message',
  'reminder_frequency',
  'otp_method',
  'require_kyc',
  'expires_at',
  'completed_at',
  'sent_at',
  'template_id',
  'campaign_id',
  'bulk_send_id',
  'folder_id',
  'file_key',
  'original_file_key',
  'original_content_type',
  'file_size',
  'page_count',
  'document_hash',
  'signed_file_key',
  'signed_file_hash',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;
const SIGNER_COLUMNS = [
  'id',
  'document_id',
  'name',
  'email',
  'phone',
  'role',
  'position',
  'status',
  'signed_at',
  'created_at',
  'updated_at',
] as const;
const FIELD_COLUMNS = [
  'id',
  'document_id',
  'type',
  'label',
  'page',
  'x',
  'y',
  'width',
  'height',
  'required',
  'read_only',
  'assigned_to',
  'placeholder',
  'default_value',
  'options',
  'value',
  'created_at',
  'updated_at',
] as const;

type Row = unknown[];

function documentRow(orgId: string, i: number, at: number): Row {
  const iso = new Date(at).toISOString();
  // Status and name words from a hash of i, not from i itself: documents go to organizations
  // round-robin, so anything cyclic in i repeats within an organization (with `i % 10` every
  // document of an organization had one status, and its names two or three words).
  const h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  const name = `${WORDS[(h >>> 8) % WORDS.length]} ${WORDS[(h >>> 14) % WORDS.length]} #${i}`;
  const status = STATUSES[(h >>> 20) % STATUSES.length];
  // prettier-ignore
  return [
    newId('doc', at),
    orgId,
    name,
    name.toLowerCase(),
    status,
    'sequential',
    '',
    null,
    null,
    null,
    null,
    0,
    null,
    status === 'completed' ? iso : null,
    status === 'draft' ? null : iso,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    0,
    null,
    '',
    null,
    '',
    iso,
    iso,
    null,
  ];
}

function detailRows(documentId: string, at: number): { signers: Row[]; fields: Row[] } {
  const iso = new Date(at).toISOString();
  return {
    signers: [0, 1].map((p) => [
      newId('sgn', at),
      documentId,
      `Signer ${p}`,
      `signer${p}@example.test`,
      null,
      'signer',
      p,
      'pending',
      null,
      iso,
      iso,
    ]),
    fields: ['signature', 'date', 'text'].map((type, k) => [
      newId('fld', at),
      documentId,
      type,
      type,
      1,
      10,
      10 + k * 10,
      30,
      5,
      1,
      0,
      k % 2,
      null,
      null,
      null,
      null,
      iso,
      iso,
    ]),
  };
}

/** Inserts rows in large statements on the bench's own connection (the API would take an hour for a million). */
interface Writer {
  insert(table: string, columns: readonly string[], rows: Row[]): Promise<void>;
  close(): Promise<void>;
}

function sqliteWriter(file: string): Writer {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const statements = new Map<string, SQLite.Statement>();
  return {
    async insert(table, columns, rows) {
      let stmt = statements.get(table);
      if (!stmt) {
        stmt = db.prepare(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
        );
        statements.set(table, stmt);
      }
      const s = stmt;
      db.transaction(() => {
        for (const r of rows) s.run(r);
      })();
    },
    async close() {
      db.close();
    },
  };
}

async function pgWriter(url: string): Promise<Writer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  return {
    async insert(table, columns, rows) {
      // One JSON parameter per statement: its rows as arrays, cast column by column.
      const types = await client.query<{ attname: string; type: string }>(
        `select attname, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
        [table],
      );
      const typeOf = new Map(types.rows.map((r) => [r.attname, r.type]));
      const select = columns.map((c, k) => `(r->>${k})::${typeOf.get(c)}`).join(', ');
      for (let i = 0; i < rows.length; i += 5000) {
        await client.query(
          `insert into ${table} (${columns.join(', ')}) select ${select} from jsonb_array_elements($1::jsonb) r`,
          [JSON.stringify(rows.slice(i, i + 5000))],
        );
      }
    },
    close: () => client.end(),
  };
}

/**
 * Seeds `orgCount` organizations, each with an API key, and `documentCount` documents spread
 * over them round-robin, a tenth of them with 2 signers and 3 fields. Timestamps are a
 * millisecond apart, so keyset pages and ids are in a realistic order. Organizations and keys go
 * through the application's own functions; documents, signers and fields through large inserts.
 */
export async function seedOrganizations(
  db: Db,
  target: SeedTarget,
  orgCount: number,
  documentCount: number,
  log: (s: string) => void = () => {},
): Promise<Seeded> {
  const started = Date.now();
  const orgs: SeededOrg[] = [];
  for (let i = 0; i < orgCount; i++) {
    const org = await createOrganization(db, {
      name: `Bench ${i}`,
      adminEmail: `bench${i}@example.test`,
    });
    const { key } = await createApiKey(db, { orgId: org.id, scopes: [...SCOPES], name: 'bench' });
    orgs.push({ id: org.id, key, documents: [] });
  }
  const writer = target.kind === 'sqlite' ? sqliteWriter(target.file) : await pgWriter(target.url);
  const start = Date.now() - documentCount - 60_000;
  const batch = 50_000;
  let detailId = '';
  try {
    for (let offset = 0; offset < documentCount; offset += batch) {
      const docs: Row[] = [];
      const signers: Row[] = [];
      const fields: Row[] = [];
      for (let i = offset; i < Math.min(documentCount, offset + batch); i++) {
        const org = orgs[i % orgCount];
        const row = documentRow(org.id, i, start + i);
        docs.push(row);
        org.documents.push(row[0] as string);
        if (Math.floor(i / orgCount) % 10 === 0) {
          const d = detailRows(row[0] as string, start + i);
          signers.push(...d.signers);
          fields.push(...d.fields);
          if (i % orgCount === 0 && !detailId) detailId = row[0] as string;
        }
      }
      await writer.insert('documents', DOCUMENT_COLUMNS, docs);
      await writer.insert('signers', SIGNER_COLUMNS, signers);
      await writer.insert('fields', FIELD_COLUMNS, fields);
      if ((offset + batch) % 200_000 === 0)
        log(
          `  seeded ${(offset + batch).toLocaleString('en')} documents (${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
    }
  } finally {
    await writer.close();
  }
  // A database that grew to this size has had its statistics gathered (PostgreSQL's autovacuum
  // does it); right after a bulk load they are missing and the planner guesses. On PostgreSQL the
  // vacuum autovacuum would start during the scenarios is done here, and a checkpoint writes the
  // loaded pages out before anything is timed.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`vacuum analyze`.execute(db);
    await sql`checkpoint`.execute(db);
  } else {
    await sql`analyze`.execute(db);
  }
  log(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { orgs, key: orgs[0].key, detailId: detailId || orgs[0].documents[0] };
}

/** Where a bench database's rows go. */
export function targetOf(bench: BenchDatabase): SeedTarget {
  return bench.name === 'sqlite'
    ? { kind: 'sqlite', file: path.join(bench.dataDir, 'signet.db') }
    : { kind: 'postgres', url: bench.env.DATABASE_URL };
}

/** One organization with `count` documents (the feature benchmarks). */
export async function seedDocuments(
  bench: BenchDatabase,
  count: number,
): Promise<{ orgId: string; key: string; detailId: string }> {
  const seeded = await seedOrganizations(bench.handle.db, targetOf(bench), 1, count);
  return { orgId: seeded.orgs[0].id, key: seeded.key, detailId: seeded.detailId };
}

/**
 * A SQLite bench database seeded at `scale` (1: 1,000 organizations, 1,000,000 documents; at least
 * 10 organizations) and closed, for scripts that open its file themselves (bench/statements.ts,
 * bench/commits.ts). The caller drops `bench` when done.
 */
export async function seededSqliteFile(
  scale: number,
): Promise<{ bench: BenchDatabase; seeded: Seeded; file: string }> {
  const bench = await openBenchDatabase('sqlite');
  const seeded = await seedOrganizations(
    bench.handle.db,
    targetOf(bench),
    Math.max(10, Math.round(1000 * scale)),
    Math.round(1_000_000 * scale),
  );
  await bench.handle.close();
  return { bench, seeded, file: path.join(bench.dataDir, 'signet.db') };
}
