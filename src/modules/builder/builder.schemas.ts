import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { FieldInput, FieldSchema } from '../documents-core/fields.schemas.ts';

export const BuilderLink = Type.Object(
  {
    url: Type.String({ description: '`PUBLIC_URL/build/{token}`: the builder page; works 1 hour' }),
    expiresAt: Timestamp,
  },
  { $id: 'BuilderLink' },
);

export const BuilderTokenParams = Type.Object({
  token: Type.String({ minLength: 8, maxLength: 100, description: "The builder link's token" }),
});

/** A field as the builder shows and saves it: a document's or a template's, without a value. */
const { value: _value, ...fieldProperties } = FieldSchema.properties;
const BuilderField = Type.Object({
  ...fieldProperties,
  assignedTo: Type.Integer({ description: 'The `order` of the signer (or role) who fills it' }),
});

const Party = Type.Object({
  order: Type.Integer({ description: 'What `assignedTo` names' }),
  name: Type.String({ description: "The signer's name, or the role's" }),
});

export const BuilderView = Type.Object(
  {
    kind: StringEnum(['document', 'template'] as const),
    id: Type.String({ description: 'The document or template id' }),
    name: Type.String(),
    pageCount: Nullable(Type.Integer(), { description: 'Null until a file is uploaded' }),
    parties: Type.Array(Party, { description: 'The signers (document) or roles (template)' }),
    fields: Type.Array(BuilderField),
    expiresAt: Timestamp,
  },
  { $id: 'BuilderView' },
);

export const BuilderFields = Type.Array(BuilderField);

export const BuilderSaveBody = Type.Object(
  {
    fields: Type.Array(
      Type.Object(
        {
          id: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'An existing field to keep' }),
          ),
          ...FieldInput.properties,
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000, description: 'Every field, as it should be (at most 500)' },
    ),
  },
  { additionalProperties: false, $id: 'BuilderSave' },
);
