import { Type, type Static } from 'typebox';
import { Id, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.ts';
import { EXPORT_STATUSES } from '../../db/database.ts';

/** Exports an organization may start in 24 hours (each reads every file it has). */
export const EXPORTS_PER_DAY = 10;
/** How long a finished export can be downloaded; its ZIP is deleted after. */
export const EXPORT_TTL_MS = 24 * 3_600_000;

export const OrganizationExport = Type.Object(
  {
    id: Id('exp'),
    status: StringEnum(EXPORT_STATUSES, {
      description:
        '`queued`, `processing` while the ZIP is written, then `completed` (download it within 24 hours), `failed`, or `expired` once the ZIP was deleted',
    }),
    totalDocuments: Type.Integer({ description: 'Documents the export holds' }),
    processedDocuments: Type.Integer({ description: 'Documents written into the ZIP so far' }),
    fileSize: Nullable(Type.Integer(), { description: 'Size of the ZIP in bytes, once completed' }),
    downloadUrl: Nullable(Type.String(), {
      description:
        'While `completed`: a link to the ZIP that needs no API key, valid until `expiresAt` (keep it private)',
    }),
    expiresAt: Nullable(Timestamp, {
      description: 'When the download link stops working and the ZIP is deleted',
    }),
    error: Nullable(Type.String(), { description: 'Why it failed, when `failed`' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: NullableTimestamp,
  },
  {
    $id: 'OrganizationExport',
    description:
      "An export of every document of the organization: a ZIP with each document's original, signed PDF, attachments and audit log",
  },
);
export type OrganizationExportT = Static<typeof OrganizationExport>;

export const CreateExportBody = Type.Object(
  {},
  { additionalProperties: false, description: 'No options: the export holds every document' },
);

export const DownloadQuery = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The token of the `downloadUrl` (as given)',
  }),
});

export const ExportIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
});
