import { SqliteAdapter, sql, type Kysely } from 'kysely';

/*
 * SQLite: the index that serves an organization's document list (newest first) carries the
 * lower-cased name too, so a search (`search_name like '%…%'`, which no index can seek) is checked
 * on the index entries, which lie together, instead of on the table's rows, which lie wherever
 * each document was inserted among every other organization's. With 1,000 organizations and a
 * million documents a search that matched few of an organization's documents read about a
 * thousand table pages, 6-14 ms of the event loop; it now reads the index's few pages, 0.1-0.3 ms
 * (`npm run bench -- read-mix`; list-random). The index replaces documents_org_created, of which
 * it is an extension. PostgreSQL searches with its trigram index (migration 0006): unchanged.
 */

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await db.schema
    .createIndex('documents_org_created_search')
    .ifNotExists()
    .on('documents')
    .columns(['org_id', 'created_at', 'id', 'search_name'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema.dropIndex('documents_org_created').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await db.schema
    .createIndex('documents_org_created')
    .ifNotExists()
    .on('documents')
    .columns(['org_id', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema.dropIndex('documents_org_created_search').ifExists().execute();
}
