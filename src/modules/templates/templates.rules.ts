import type { Insertable } from 'kysely';
import type {
  TemplateFieldsTable,
  TemplateRoleRow,
  TemplateRolesTable,
} from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import { newId } from '../../ids.ts';
import { buildFieldRows } from '../documents-core/fields.rules.ts';
import type { FieldInputT } from '../documents-core/fields.schemas.ts';
import type { RoleInputT } from './templates.schemas.ts';

/** Roles a template may have (as many as a document's signers). */
export const MAX_ROLES = 50;

/** A fixed signer is named by its email; a name alone could not be invited. */
export function checkFixedSigner(
  signerName: string | null,
  signerEmail: string | null,
  path = 'body',
): void {
  if (signerName !== null && signerEmail === null) {
    throw new AppError(
      'validation_error',
      `${path}.signerEmail is required when signerName is set`,
      [{ path: `${path}.signerEmail`, message: 'is required when signerName is set' }],
    );
  }
}

/**
 * Rows for new roles of a template. `order` defaults to the next free position; an order already
 * taken (by an existing role or another new one) is a validation error.
 */
export function buildRoleRows(
  templateId: string,
  inputs: RoleInputT[],
  existing: Pick<TemplateRoleRow, 'position'>[],
  now: string,
  pathPrefix = '',
): Insertable<TemplateRolesTable>[] {
  const taken = new Set(existing.map((r) => r.position));
  let next = existing.reduce((max, r) => Math.max(max, r.position + 1), 0);
  return inputs.map((input, index) => {
    const path = pathPrefix ? `${pathPrefix}.${index}` : 'body';
    const position = input.order ?? next;
    if (taken.has(position)) {
      throw new AppError('validation_error', `Role order ${position} is already taken`, [
        { path: `${path}.order`, message: `${position} is already taken by another role` },
      ]);
    }
    const signerName = input.signerName ?? null;
    const signerEmail = input.signerEmail?.toLowerCase() ?? null;
    checkFixedSigner(signerName, signerEmail, path);
    taken.add(position);
    next = Math.max(next, position + 1);
    return {
      id: newId('rol'),
      template_id: templateId,
      name: input.name,
      position,
      signing_group: input.group ?? null,
      signer_name: signerName,
      signer_email: signerEmail,
      locale: checkOptionalLocale(input.locale, `${path}.locale`) ?? null,
      created_at: now,
      updated_at: now,
    };
  });
}

/** Template field rows, checked by the same rules as a document's fields. */
export function buildTemplateFieldRows(
  templateId: string,
  inputs: FieldInputT[],
  now: string,
  pathPrefix = '',
): Insertable<TemplateFieldsTable>[] {
  return buildFieldRows(templateId, inputs, now, pathPrefix).map(
    ({ document_id, value: _value, ...row }) => ({ ...row, template_id: document_id }),
  );
}
