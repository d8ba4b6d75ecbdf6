import { Type, type Static } from 'typebox';
import { Id, Nullable, PageQuery, StringEnum } from '../../http/schemas.ts';

import { FIELD_TYPES, type FieldType } from './field-types.ts';

export { FIELD_TYPES, type FieldType };

export const FieldTypeSchema = StringEnum(FIELD_TYPES);
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });
const Size = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 100, description });

export const FieldSchema = Type.Object(
  {
    id: Id('fld'),
    type: FieldTypeSchema,
    label: Type.String(),
    page: Type.Integer({ description: '1-based page number' }),
    x: Type.Number({ description: 'Left edge, % of page width from the left' }),
    y: Type.Number({ description: 'Top edge, % of page height from the top' }),
    width: Type.Number({ description: '% of page width' }),
    height: Type.Number({ description: '% of page height' }),
    required: Type.Boolean(),
    readOnly: Type.Boolean(),
    assignedTo: Type.Integer({ description: 'The `order` of the signer who fills it' }),
    placeholder: Nullable(Type.String()),
    defaultValue: Nullable(Type.String()),
    options: Nullable(Type.Array(Type.String())),
    value: Nullable(Type.String({ description: 'The value entered by the signer, once signed' })),
  },
  { $id: 'Field' },
);
export type FieldT = Static<typeof FieldSchema>;

const geometry = {
  page: Type.Integer({ minimum: 1, maximum: 10000 }),
  x: Percent('Left edge, % of page width (0-100)'),
  y: Percent('Top edge, % of page height (0-100)'),
  width: Size('% of page width (0-100]'),
  height: Size('% of page height (0-100]'),
};
/** A field's settings besides its type and place (shared by placed and anchored bodies). */
export const fieldExtras = {
  label: Type.Optional(Type.String({ maxLength: 200 })),
  required: Type.Optional(Type.Boolean()),
  readOnly: Type.Optional(Type.Boolean()),
  assignedTo: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })),
  placeholder: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  defaultValue: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  options: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }),
    ),
  ),
};

export const FieldInput = Type.Object(
  { type: FieldTypeSchema, ...geometry, ...fieldExtras },
  { additionalProperties: false },
);
export type FieldInputT = Static<typeof FieldInput>;

export const FieldPatch = Type.Object(
  {
    type: Type.Optional(FieldTypeSchema),
    page: Type.Optional(geometry.page),
    x: Type.Optional(geometry.x),
    y: Type.Optional(geometry.y),
    width: Type.Optional(geometry.width),
    height: Type.Optional(geometry.height),
    ...fieldExtras,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type FieldPatchT = Static<typeof FieldPatch>;

export const FieldParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Document id' }),
  fieldId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ListFieldsQuery = Type.Object(PageQuery, { additionalProperties: false });
export type ListFieldsQueryT = Static<typeof ListFieldsQuery>;
