import type { Insertable } from 'kysely';
import type { AppDeps } from '../../deps.ts';
import type {
  DocumentsTable,
  Executor,
  FieldsTable,
  SignersTable,
  TemplateFieldRow,
  TemplateRoleRow,
  TemplateRow,
} from '../../db/database.ts';
import { validation } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { StorageNotFound } from '../../storage/storage.ts';
import { discardObjects, newUploadKey } from '../documents-core/file-intake.ts';
import type { SignerInputT } from '../documents-core/signers.schemas.ts';
import * as repo from './templates.repository.ts';

/*
 * Making a document from a template: the document gets its own copy of the template's file (so
 * deleting or re-uploading the template never touches it), a copy of every field, and a signer for
 * each role with a fixed signer. Used by `POST /api/v1/documents` with `templateId` and by campaign
 * submissions.
 */

/** The file columns of a document; empty when the template has no file yet. */
export type FileColumns = Partial<
  Pick<
    Insertable<DocumentsTable>,
    | 'file_key'
    | 'original_file_key'
    | 'original_content_type'
    | 'file_size'
    | 'page_count'
    | 'document_hash'
    | 'shown_file_hash'
  >
>;

export interface TemplateParts {
  template: TemplateRow;
  roles: TemplateRoleRow[];
  fields: TemplateFieldRow[];
}

/** The template with its roles (in order) and fields; undefined when it is not the organization's. */
export async function loadTemplateParts(
  db: Executor,
  orgId: string,
  templateId: string,
): Promise<TemplateParts | undefined> {
  const template = await repo.findTemplate(db, orgId, templateId);
  if (!template) return undefined;
  const [roles, fields] = await Promise.all([
    repo.listRoles(db, templateId),
    repo.listTemplateFields(db, templateId),
  ]);
  return { template, roles, fields };
}

async function copyObject(
  deps: Pick<AppDeps, 'storage'>,
  from: string,
  to: string,
  contentType: string,
): Promise<void> {
  await deps.storage.put(to, await deps.storage.get(from), contentType);
}

/**
 * Copies the template's file (and its original upload, when that was an image converted to PDF)
 * into keys owned by the document. Returns the document's file columns and the keys written, for
 * the caller to delete should its transaction fail. A template without a file gives none. When a
 * new upload replaced the template's file (and deleted the old one) during the copy, the copy is
 * made again from the template as it is now.
 */
export async function copyTemplateFile(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  template: TemplateRow,
  documentId: string,
): Promise<{ columns: FileColumns; written: string[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await copyFileOnce(deps, template, documentId);
    } catch (err) {
      if (!(err instanceof StorageNotFound) || attempt === 3) throw err;
      const now = await repo.findTemplate(deps.db, template.org_id, template.id);
      if (!now || now.file_key === template.file_key) throw err;
      template = now;
    }
  }
}

async function copyFileOnce(
  deps: Pick<AppDeps, 'storage'>,
  template: TemplateRow,
  documentId: string,
): Promise<{ columns: FileColumns; written: string[] }> {
  if (!template.file_key) return { columns: {}, written: [] };
  const written: string[] = [];
  try {
    const fileKey = newUploadKey(template.org_id, documentId, 'template.pdf');
    await copyObject(deps, template.file_key, fileKey, 'application/pdf');
    written.push(fileKey);
    let originalKey = fileKey;
    if (template.original_file_key && template.original_file_key !== template.file_key) {
      originalKey = newUploadKey(
        template.org_id,
        documentId,
        template.original_file_key.split('/').at(-1) ?? 'original',
      );
      await copyObject(
        deps,
        template.original_file_key,
        originalKey,
        template.original_content_type ?? 'application/octet-stream',
      );
      written.push(originalKey);
    }
    return {
      columns: {
        file_key: fileKey,
        original_file_key: originalKey,
        original_content_type: template.original_content_type ?? 'application/pdf',
        file_size: template.file_size,
        page_count: template.page_count,
        document_hash: template.document_hash,
        shown_file_hash: template.shown_file_hash,
      },
      written,
    };
  } catch (err) {
    await discardFiles(deps, written);
    throw err;
  }
}

export async function discardFiles(deps: Pick<AppDeps, 'storage'>, keys: string[]): Promise<void> {
  await discardObjects(deps.storage, keys);
}

/** The document's copy of the template's fields; `assignedTo` keeps the role's order. */
export function copyFields(
  documentId: string,
  fields: TemplateFieldRow[],
  now: string,
): Insertable<FieldsTable>[] {
  return fields.map((f) => ({
    id: newId('fld'),
    document_id: documentId,
    type: f.type,
    label: f.label,
    page: f.page,
    x: f.x,
    y: f.y,
    width: f.width,
    height: f.height,
    required: f.required,
    read_only: f.read_only,
    assigned_to: f.assigned_to,
    placeholder: f.placeholder,
    default_value: f.default_value,
    options: f.options,
    value: null,
    created_at: now,
    updated_at: now,
  }));
}

/** A `signer` at `order` on a new document. */
export function signerRow(
  documentId: string,
  s: {
    order: number;
    name: string;
    email: string;
    phone?: string | null;
    locale?: string | null;
    group?: number | null;
  },
  now: string,
): Insertable<SignersTable> {
  return {
    id: newId('sgn'),
    document_id: documentId,
    name: s.name,
    email: s.email.toLowerCase(),
    phone: s.phone ?? null,
    locale: s.locale ?? null,
    role: 'signer',
    position: s.order,
    signing_group: s.group ?? null,
    status: 'pending',
    signed_at: null,
    created_at: now,
    updated_at: now,
  };
}

export interface DocumentSeed {
  documentId: string;
  templateId: string;
  signingType: string;
  /** The template's `allowReassign`: the document's unless the request says otherwise. */
  allowReassign: boolean;
  file: FileColumns;
  signers: Insertable<SignersTable>[];
  fields: Insertable<FieldsTable>[];
  /**
   * The signers of the request, with an `order` given to those without one (the roles left open
   * first, lowest first) and, unless they name their own, the `group` of the role they take.
   */
  placeSigners(inputs: SignerInputT[]): SignerInputT[];
  /** Deletes the copied files (the document was not created after all). */
  discard(): Promise<void>;
}

/**
 * What `POST /api/v1/documents` with `templateId` starts the document with. The template must be
 * the organization's (400 on `body.templateId`, like any reference in a body).
 */
export async function seedFromTemplate(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  orgId: string,
  documentId: string,
  templateId: string,
  now: string,
  /** The template's parts when the caller has just read them (a bulk send reads them once per chunk of rows). */
  loaded?: TemplateParts,
): Promise<DocumentSeed> {
  const parts = loaded ?? (await loadTemplateParts(deps.db, orgId, templateId));
  if (!parts) throw validation('body.templateId', 'is not a template of your organization');
  const fixed = parts.roles.filter((r) => r.signer_email !== null);
  const open = parts.roles.filter((r) => r.signer_email === null).map((r) => r.position);
  // Only a role with a group of its own gives one: otherwise the signer's group is its order.
  const groupOfRole = new Map(
    parts.roles.flatMap((r) => (r.signing_group === null ? [] : [[r.position, r.signing_group]])),
  );
  const { columns, written } = await copyTemplateFile(deps, parts.template, documentId);
  return {
    documentId,
    templateId,
    signingType: parts.template.signing_type,
    allowReassign: parts.template.allow_reassign === 1,
    file: columns,
    signers: fixed.map((r) =>
      signerRow(
        documentId,
        {
          order: r.position,
          name: r.signer_name ?? r.name,
          email: r.signer_email!,
          locale: r.locale,
          group: r.signing_group,
        },
        now,
      ),
    ),
    fields: copyFields(documentId, parts.fields, now),
    placeSigners(inputs) {
      const free = open.filter((order) => !inputs.some((s) => s.order === order));
      return inputs.map((s) => {
        const order = s.order === undefined && free.length > 0 ? free.shift()! : s.order;
        const group = s.group ?? (order === undefined ? undefined : groupOfRole.get(order));
        // A signer without its own locale takes its role's.
        const locale =
          s.locale ?? parts.roles.find((r) => r.position === order)?.locale ?? undefined;
        return {
          ...s,
          ...(order === undefined ? {} : { order }),
          ...(group === undefined ? {} : { group }),
          ...(locale == null ? {} : { locale }),
        };
      });
    },
    discard: () => discardFiles(deps, written),
  };
}
