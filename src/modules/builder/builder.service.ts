import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { requireDocument, requireDraft } from '../documents-core/document-access.ts';
import { listFields } from '../documents-core/fields.repository.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { toField } from '../documents-core/documents.mappers.ts';
import { replaceDocumentFields } from '../fields/replace-fields.service.ts';
import { requireTemplate } from '../templates/templates.service.ts';
import { listRoles, listTemplateFields } from '../templates/templates.repository.ts';
import { toTemplateField } from '../templates/templates.mappers.ts';
import { replaceTemplateFields } from '../templates/replace-template-fields.ts';
import type { ReplacingFieldT } from '../documents-core/field-replacement.ts';
import { issueBuilderLink, resolveBuilderLink, type BuilderLinkRow } from './builder-links.ts';

/*
 * The builder (README "The builder"): a person with a builder link places the fields of one draft
 * document or one template on its pages. Everything it saves goes through the rules of the fields
 * API (replace-fields.service.ts, replace-template-fields.ts).
 */

/** A document's field as the builder has it: a template's field has no value either. */
function withoutValue(row: Parameters<typeof toField>[0]) {
  const { value: _v, ...field } = toField(row);
  return field;
}

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/** A builder link for a draft document of the organization (409 `invalid_state` once sent). */
export async function createDocumentBuilderLink(deps: Deps, orgId: string, documentId: string) {
  const doc = await requireDocument(deps.db, orgId, documentId);
  requireDraft(doc, 'open the builder');
  return issueBuilderLink(deps, orgId, { documentId: doc.id });
}

/** A builder link for a template of the organization. */
export async function createTemplateBuilderLink(deps: Deps, orgId: string, templateId: string) {
  const template = await requireTemplate(deps.db, orgId, templateId);
  return issueBuilderLink(deps, orgId, { templateId: template.id });
}

/** The document or template a live link opens (a document only while it is a draft). */
async function targetOf(deps: Deps, link: BuilderLinkRow) {
  if (link.document_id !== null) {
    const doc = await requireDocument(deps.db, link.org_id, link.document_id);
    requireDraft(doc, 'edit its fields');
    return { kind: 'document' as const, row: doc };
  }
  const template = await requireTemplate(deps.db, link.org_id, link.template_id ?? '');
  return { kind: 'template' as const, row: template };
}

/** What the builder page shows: the pages' count, the signers or roles, the fields. */
export async function getBuilderView(deps: Deps, token: string) {
  const link = await resolveBuilderLink(deps, token);
  const target = await targetOf(deps, link);
  const id = target.row.id;
  const common = {
    kind: target.kind,
    id,
    name: target.row.name,
    pageCount: target.row.page_count,
    expiresAt: link.expires_at,
  };
  if (target.kind === 'document') {
    const [signers, fields] = await Promise.all([
      listSigners(deps.db, id),
      listFields(deps.db, id),
    ]);
    return {
      ...common,
      parties: signers.map((s) => ({ order: s.position, name: s.name })),
      fields: fields.map(withoutValue),
    };
  }
  const [roles, fields] = await Promise.all([
    listRoles(deps.db, id),
    listTemplateFields(deps.db, id),
  ]);
  return {
    ...common,
    parties: roles.map((r) => ({ order: r.position, name: r.name })),
    fields: fields.map(toTemplateField),
  };
}

/** The PDF the builder shows (the document's or template's file, as signers will see it). */
export async function openBuilderFile(
  deps: Deps & Pick<AppDeps, 'storage'>,
  token: string,
): Promise<{ stream: Readable; name: string; size: number | null }> {
  const target = await targetOf(deps, await resolveBuilderLink(deps, token));
  const key = target.row.file_key;
  const stat = key ? await deps.storage.stat(key) : null;
  if (!key || !stat) throw notFound('File');
  return { stream: await deps.storage.get(key), name: `${target.row.name}.pdf`, size: stat.size };
}

/** Saves the builder's fields: they become exactly `fields` (see replaceDocumentFields). */
export async function saveBuilderFields(
  deps: Deps,
  token: string,
  fields: readonly ReplacingFieldT[],
  meta: RequestMeta,
) {
  const link = await resolveBuilderLink(deps, token);
  if (link.document_id !== null) {
    const saved = await replaceDocumentFields(
      deps,
      { orgId: link.org_id, meta },
      link.document_id,
      fields,
      'builder link',
    );
    return saved.map(({ value: _v, ...f }) => f);
  }
  return replaceTemplateFields(deps, link.org_id, link.template_id ?? '', fields);
}
