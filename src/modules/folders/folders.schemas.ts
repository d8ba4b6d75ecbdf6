import { Type, type Static } from 'typebox';
import { Id, Nullable, PageQuery, Timestamp } from '../../http/schemas.ts';

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: '1-200 characters, not blank',
});
const ParentId = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'A folder of your organization; null for a top-level folder',
  }),
);

export const FolderSchema = Type.Object(
  {
    id: Id('fol'),
    name: Type.String(),
    parentId: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Folder' },
);
export type FolderT = Static<typeof FolderSchema>;

export const CreateFolderBody = Type.Object(
  { name: Name, parentId: Type.Optional(ParentId) },
  { additionalProperties: false },
);
export type CreateFolderInput = Static<typeof CreateFolderBody>;

export const UpdateFolderBody = Type.Object(
  { name: Type.Optional(Name), parentId: Type.Optional(ParentId) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateFolderInput = Static<typeof UpdateFolderBody>;

export const ListFoldersQuery = Type.Object(
  {
    ...PageQuery,
    parentId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only the direct subfolders of this folder',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListFoldersQueryT = Static<typeof ListFoldersQuery>;
