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
      await repo.updateTemplate(trx, templateId, {
        ...fileColumns(file),
        updated_at: deps.clock.now().toISOString(),
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
