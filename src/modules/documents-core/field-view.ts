import type { FieldRow } from '../../db/database.ts';
import type { FieldType } from './fields.schemas.ts';

/** The columns a document field and a template field share. */
type FieldColumns = Pick<
  FieldRow,
  | 'id'
  | 'type'
  | 'label'
  | 'page'
  | 'x'
  | 'y'
  | 'width'
  | 'height'
  | 'required'
  | 'read_only'
  | 'placeholder'
  | 'default_value'
  | 'options'
>;

/**
 * A field's placement and input settings as every response shows them (document, template,
 * signing page, campaign page); each caller adds what its view has besides (`assignedTo`, `value`).
 */
export function fieldView(row: FieldColumns) {
  return {
    id: row.id,
    type: row.type as FieldType,
    label: row.label,
    page: row.page,
    x: row.x,
    y: row.y,
    width: row.width,
    height: row.height,
    required: row.required === 1,
    readOnly: row.read_only === 1,
    placeholder: row.placeholder,
    defaultValue: row.default_value,
    options: row.options === null ? null : (JSON.parse(row.options) as string[]),
  };
}
