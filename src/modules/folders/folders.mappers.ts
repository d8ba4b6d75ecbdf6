import type { FolderRow } from '../../db/database.ts';
import type { FolderT } from './folders.schemas.ts';

export function toFolder(row: FolderRow): FolderT {
  return {
    id: row.id,
    name: row.name,
    parentId: row.parent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
