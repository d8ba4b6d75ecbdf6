import type { Insertable } from 'kysely';
import type { FieldsTable } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { fieldTypeSpec } from './field-types.ts';
import type { FieldInputT } from './fields.schemas.ts';

/** Fields a document may have. */
export const MAX_FIELDS = 500;

/** `page` must exist in the document once its page count is known (null until a file is uploaded). */
export function checkPage(page: number, pageCount: number | null, path = 'body.page'): void {
  if (pageCount !== null && page > pageCount) {
    throw new AppError(
      'validation_error',
      `${path} must be at most ${pageCount}: the document has ${pageCount} page(s)`,
      [{ path, message: `must be at most ${pageCount} (the document's page count)` }],
    );
  }
}

/**
 * The first of `fields` on a page the file does not have (placed before the file arrived, or kept
 * when a shorter one replaced it); none while the page count is unknown.
 */
export function fieldBeyondPages<F extends { page: number }>(
  fields: readonly F[],
  pageCount: number | null,
): F | undefined {
  return pageCount === null ? undefined : fields.find((f) => f.page > pageCount);
}

/** The field as it would be after a create or patch: checked as a whole. */
export interface FieldShape {
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  options: string[] | null;
  defaultValue: string | null;
}

/** Rules a schema cannot say: the box stays on the page, options go with choice types only. */
export function checkField(field: FieldShape, path = 'body'): void {
  const problems: ErrorDetail[] = [];
  const at = (name: string) => (path ? `${path}.${name}` : name);
  if (field.x + field.width > 100)
    problems.push({ path: at('width'), message: 'x + width must not exceed 100 (% of the page)' });
  if (field.y + field.height > 100)
    problems.push({
      path: at('height'),
      message: 'y + height must not exceed 100 (% of the page)',
    });
  const needsOptions = fieldTypeSpec(field.type).options === 'required';
  if (needsOptions && (!field.options || field.options.length === 0)) {
    problems.push({ path: at('options'), message: `is required for ${field.type} fields` });
  }
  if (!needsOptions && field.options)
    problems.push({ path: at('options'), message: `must be null for ${field.type} fields` });
  if (
    needsOptions &&
    field.options &&
    field.defaultValue !== null &&
    !field.options.includes(field.defaultValue)
  ) {
    problems.push({ path: at('defaultValue'), message: 'must be one of options' });
  }
  if (field.options && new Set(field.options).size !== field.options.length) {
    problems.push({ path: at('options'), message: 'must not repeat a value' });
  }
  if (problems.length > 0)
    throw new AppError('validation_error', `${problems[0].path} ${problems[0].message}`, problems);
}

export function buildFieldRows(
  documentId: string,
  inputs: FieldInputT[],
  now: string,
  pathPrefix = '',
): Insertable<FieldsTable>[] {
  return inputs.map((input, i) => {
    const options = input.options ?? null;
    const defaultValue = input.defaultValue ?? null;
    checkField({ ...input, options, defaultValue }, pathPrefix ? `${pathPrefix}.${i}` : 'body');
    return {
      id: newId('fld'),
      document_id: documentId,
      type: input.type,
      label: input.label ?? '',
      page: input.page,
      x: input.x,
      y: input.y,
      width: input.width,
      height: input.height,
      required: input.required === false ? 0 : 1,
      read_only: input.readOnly ? 1 : 0,
      assigned_to: input.assignedTo ?? 0,
      placeholder: input.placeholder ?? null,
      default_value: defaultValue,
      options: options ? JSON.stringify(options) : null,
      value: null,
      created_at: now,
      updated_at: now,
    };
  });
}
