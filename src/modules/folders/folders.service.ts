import type { Updateable } from 'kysely';
import type { AppDeps } from '../../deps.ts';
import type { Executor, FolderRow, FoldersTable } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { toFolder } from './folders.mappers.ts';
import * as repo from './folders.repository.ts';
import type { CreateFolderInput, ListFoldersQueryT, UpdateFolderInput } from './folders.schemas.ts';

async function requireFolder(db: Executor, orgId: string, id: string): Promise<FolderRow> {
  const row = await repo.findFolder(db, orgId, id);
  if (!row) throw notFound('Folder');
  return row;
}

/**
 * Checks a new parent for folder `id` (undefined for a folder being created): it must be a folder
 * of the organization, and not the folder itself or one of its descendants (no cycles).
 */
async function checkParent(
  db: Executor,
  orgId: string,
  parentId: string,
  id?: string,
): Promise<void> {
  const refuse = (sentence: string, message: string) =>
    new AppError('validation_error', sentence, [{ path: 'body.parentId', message }]);
  const chain = await repo.folderAncestry(db, orgId, parentId);
  if (chain.length === 0)
    throw refuse(
      'parentId is not a folder of your organization',
      'is not a folder of your organization',
    );
  if (id === undefined) return;
  if (parentId === id)
    throw refuse('A folder cannot be its own parent', 'cannot be the folder itself');
  if (chain.includes(id)) {
    throw refuse(
      'A folder cannot move into one of its own subfolders',
      'is a subfolder of this folder; a folder cannot become its own ancestor',
    );
  }
}

export async function createFolder(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  input: CreateFolderInput,
) {
  const now = deps.clock.now().toISOString();
  const row: FolderRow = {
    id: newId('fol'),
    org_id: orgId,
    name: input.name,
    parent_id: input.parentId ?? null,
    created_at: now,
    updated_at: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    if (row.parent_id !== null) {
      await repo.lockFolderTree(trx, orgId);
      await checkParent(trx, orgId, row.parent_id);
    }
    await repo.insertFolder(trx, row);
  });
  return toFolder(row);
}

export async function getFolder(deps: Pick<AppDeps, 'db'>, orgId: string, id: string) {
  return toFolder(await requireFolder(deps.db, orgId, id));
}

/** Newest first; `parentId` narrows to the direct subfolders of one folder. */
export async function listFolders(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  query: ListFoldersQueryT,
) {
  const { rows, meta } = await repo.listFolders(
    deps.db,
    orgId,
    { parentId: query.parentId },
    { list: 'folders', limit: query.limit, cursor: query.cursor },
  );
  return { data: rows.map(toFolder), meta };
}

/** Renames or moves a folder; a move must keep the tree a tree. */
export async function updateFolder(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  id: string,
  input: UpdateFolderInput,
) {
  return deps.db.transaction().execute(async (trx) => {
    if (input.parentId) await repo.lockFolderTree(trx, orgId);
    const folder = await requireFolder(trx, orgId, id);
    if (input.parentId) await checkParent(trx, orgId, input.parentId, id);
    const changes: Updateable<FoldersTable> = { updated_at: deps.clock.now().toISOString() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.parentId !== undefined) changes.parent_id = input.parentId;
    await repo.updateFolder(trx, id, changes);
    return toFolder({ ...folder, ...changes } as FolderRow);
  });
}

/** Deletes an empty folder: one that holds no live document and no subfolder (409 says which). */
export async function deleteFolder(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  id: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockFolderTree(trx, orgId);
    await requireFolder(trx, orgId, id);
    const documents = await repo.countLiveDocuments(trx, id);
    const subfolders = await repo.countSubfolders(trx, id);
    if (documents > 0 || subfolders > 0) {
      const what = [
        documents > 0 ? `${documents} document(s)` : '',
        subfolders > 0 ? `${subfolders} subfolder(s)` : '',
      ].filter(Boolean);
      throw new AppError(
        'invalid_state',
        `The folder still holds ${what.join(' and ')}; move or delete them first`,
        [{ documents, subfolders }],
      );
    }
    await repo.detachDeletedDocuments(trx, id);
    await repo.deleteFolder(trx, id);
  });
}
