import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import type { UploadInput } from '../documents-core/documents.schemas.ts';
import {
  discardObjects,
  fileColumns,
  newKeyUnder,
  staleKeys,
  writtenKeys,
} from '../documents-core/file-intake.ts';
import {
  ingestGranted,
  signetUploadTicket,
  uploadRequest,
} from '../documents-core/upload.service.ts';
import type { UploadGrant } from '../documents-core/upload-token.ts';
import type { Executor } from '../../db/database.ts';
import { MAX_FIELDS } from '../documents-core/fields.rules.ts';
import { tagOutcome, type ReadTags } from '../documents-core/tag-intake.ts';
import { buildTemplateFieldRows } from './templates.rules.ts';
import * as repo from './templates.repository.ts';
import { getTemplate, requireTemplate } from './templates.service.ts';

/*
 * A template's file arrives through the same two steps as a document's: a ticket, then a PUT of
 * the bytes to its URL, checked and stored by the same intake (size, magic number, SHA-256, image
 * to PDF, page count). The URL is always Signet's own, whatever the storage driver: a template's
 * file is handed to every campaign submitter and copied into every document made from it, so it
 * is verified before it becomes the template's file rather than on a later use.
 */

/** Where a template's own files live; only objects under it are deleted when the file is replaced. */
const templatePrefix = (orgId: string, templateId: string) =>
  `orgs/${orgId}/templates/${templateId}/`;

/**
 * On the locked template being given a file read for tags: replaces the fields earlier tags made
 * with this file's (`N` names the role of order N-1, `role=` a role by name) and returns its
 * warnings (as stored).
 */
async function replaceTemplateTagFields(
  trx: Executor,
  templateId: string,
  tags: ReadTags,
  now: string,
): Promise<string> {
  const roles = await repo.listRoles(trx, templateId);
  await trx
    .deleteFrom('template_fields')
    .where('template_id', '=', templateId)
    .where('origin', '=', 'tag')
    .execute();
  const others = await repo.countTemplateFields(trx, templateId);
  const { fields, warnings } = tagOutcome(
    tags,
    {
      orders: roles.length > 0 ? roles.map((r) => r.position) : null,
      roles: new Map(roles.map((r) => [r.name, r.position])),
    },
    MAX_FIELDS - others,
  );
  const rows = buildTemplateFieldRows(templateId, fields, now).map((r) => ({
    ...r,
    origin: 'tag',
  }));
  await repo.insertTemplateFields(trx, rows);
  return JSON.stringify(warnings);
}

/** Step 1: a signed URL, bound to this template, the declared type and the size limit. */
export async function createTemplateUploadTicket(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'secret'>,
  orgId: string,
  templateId: string,
  input: UploadInput,
) {
  await requireTemplate(deps.db, orgId, templateId);
  const { limits, filename } = uploadRequest(input);
  const fileKey = newKeyUnder(templatePrefix(orgId, templateId), filename);
  return signetUploadTicket(deps, {
    target: 'template',
    targetId: templateId,
    orgId,
    fileKey,
    ...limits,
  });
}

/**
 * Step 2: ingests the bytes and makes them the template's file, on the locked row; the file it
 * replaced is deleted after the commit. Documents made from the template earlier keep their own
 * copies; later ones get the new file.
 */
export async function receiveTemplateUpload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  grant: UploadGrant,
  body: Readable,
) {
  const { orgId, targetId: templateId } = grant;
  const gone = () => invalidState('The template was deleted; it no longer accepts uploads');
  const template = await repo.findTemplate(deps.db, orgId, templateId);
  if (!template) throw gone();
  const prefix = templatePrefix(orgId, templateId);
  const file = await ingestGranted(
    deps,
    grant,
    body,
    () => newKeyUnder(prefix, grant.fileKey.split('/').at(-1)!),
    template,
  );
  const written = writtenKeys(file);
  let replaced: Awaited<ReturnType<typeof repo.lockTemplate>>;
  try {
    replaced = await deps.db.transaction().execute(async (trx) => {
      const current = await repo.lockTemplate(trx, orgId, templateId).catch((err: unknown) => {
        throw err instanceof AppError && err.code === 'not_found' ? gone() : err;
      });
      const now = deps.clock.now().toISOString();
      await repo.updateTemplate(trx, templateId, {
        ...fileColumns(file),
        warnings: file.tags
          ? await replaceTemplateTagFields(trx, templateId, file.tags, now)
          : null,
        updated_at: now,
      });
      return current;
    });
  } catch (err) {
    await discardObjects(deps.storage, written);
    throw err;
  }
  await discardObjects(deps.storage, staleKeys(replaced, prefix, written));
  return getTemplate(deps, orgId, templateId);
}
