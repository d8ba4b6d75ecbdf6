import { fieldView } from '../documents-core/field-view.ts';
import type { TemplateFieldRow, TemplateRoleRow } from '../../db/database.ts';
import type { TemplateWithCounts } from './templates.repository.ts';
import type {
  RoleT,
  TemplateDetailT,
  TemplateFieldT,
  TemplateListItemT,
} from './templates.schemas.ts';

export function toTemplateListItem(row: TemplateWithCounts): TemplateListItemT {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    signingType: row.signing_type as TemplateListItemT['signingType'],
    allowReassign: row.allow_reassign === 1,
    fileSize: row.file_size,
    pageCount: row.page_count,
    documentHash: row.document_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    _count: { roles: Number(row.role_count), fields: Number(row.field_count) },
  };
}

export function toRole(row: TemplateRoleRow): RoleT {
  return {
    id: row.id,
    name: row.name,
    order: row.position,
    group: row.signing_group ?? row.position,
    signerName: row.signer_name,
    signerEmail: row.signer_email,
    locale: row.locale ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toTemplateField(row: TemplateFieldRow): TemplateFieldT {
  return { ...fieldView(row), assignedTo: row.assigned_to };
}

export function toTemplateDetail(
  row: TemplateWithCounts,
  roles: TemplateRoleRow[],
  fields: TemplateFieldRow[],
): TemplateDetailT {
  // Added to the list item rather than spread into a new literal (V8's slow path, see toDocumentDetail).
  const detail = toTemplateListItem(row) as TemplateDetailT;
  detail.warnings = row.warnings ? (JSON.parse(row.warnings) as TemplateDetailT['warnings']) : [];
  detail.roles = roles.map(toRole);
  detail.fields = fields.map(toTemplateField);
  return detail;
}
