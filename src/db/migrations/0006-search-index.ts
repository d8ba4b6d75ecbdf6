import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * `search=` on documents is a case-insensitive substring match (`search_name like '%…%'`), which no
 * b-tree index can serve: on a million documents PostgreSQL read them all. A trigram GIN index
 * (pg_trgm) answers such patterns of three characters or more from the index. The extension ships
 * with PostgreSQL and is trusted (any user who may create objects in the database may install it);
 * where it is missing or refused, the migration goes on without the index and search still works,
 * by scanning. SQLite has no trigram index for LIKE; it keeps scanning the organization's rows.
 */

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  if (rows[0].n === 0) return;
  // The migration runs in a transaction; a refusal must not abort it.
  await sql`savepoint signet_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
  } catch {
    await sql`rollback to savepoint signet_trgm`.execute(db);
    return;
  }
  await sql`release savepoint signet_trgm`.execute(db);
  await sql`create index if not exists documents_search_trgm on documents using gin (search_name gin_trgm_ops) where deleted_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index if exists documents_search_trgm`.execute(db);
}
