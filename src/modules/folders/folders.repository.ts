import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor, FolderRow, FoldersTable } from '../../db/database.ts';
import { paginate, type PageRequest } from '../../http/pagination.ts';

/** Longest parent chain walked; deeper trees are not expected, and it bounds the walk whatever the data. */
const MAX_DEPTH = 1000;

export async function findFolder(
  db: Executor,
  orgId: string,
  id: string,
): Promise<FolderRow | undefined> {
  return db
    .selectFrom('folders')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function listFolders(
  db: Executor,
  orgId: string,
  filter: { parentId?: string },
  page: PageRequest,
) {
  let q = db.selectFrom('folders').selectAll().where('org_id', '=', orgId);
  if (filter.parentId) q = q.where('parent_id', '=', filter.parentId);
  return paginate(q, page);
}

export async function insertFolder(db: Executor, row: Insertable<FoldersTable>): Promise<void> {
  await db.insertInto('folders').values(row).execute();
}

export async function updateFolder(
  db: Executor,
  id: string,
  changes: Updateable<FoldersTable>,
): Promise<void> {
  await db.updateTable('folders').set(changes).where('id', '=', id).execute();
}

export async function deleteFolder(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('folders').where('id', '=', id).execute();
}

/** Ids from `id` up to its root (`id` first); empty when `id` is not a folder of the organization. */
export async function folderAncestry(db: Executor, orgId: string, id: string): Promise<string[]> {
  const result = await sql<{ id: string }>`
    with recursive chain (id, parent_id, depth) as (
      select id, parent_id, 0 from folders where id = ${id} and org_id = ${orgId}
      union all
      select f.id, f.parent_id, c.depth + 1 from folders f join chain c on f.id = c.parent_id
      where c.depth < ${MAX_DEPTH}
    )
    select id from chain order by depth`.execute(db);
  return result.rows.map((r) => r.id);
}

export async function countSubfolders(db: Executor, id: string): Promise<number> {
  const row = await db
    .selectFrom('folders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_id', '=', id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function countLiveDocuments(db: Executor, id: string): Promise<number> {
  const row = await db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('folder_id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deleted documents keep no folder, so the folder row can go (the foreign key would refuse it). */
export async function detachDeletedDocuments(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('documents')
    .set({ folder_id: null })
    .where('folder_id', '=', id)
    .where('deleted_at', 'is not', null)
    .execute();
}

/**
 * Serializes changes to one organization's folder tree until the transaction ends: a same-value
 * update takes the organization row's lock on PostgreSQL (SQLite has a single writer), so two
 * concurrent moves cannot each pass the cycle check and together make a cycle.
 */
export async function lockFolderTree(db: Executor, orgId: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', orgId)
    .execute();
}
