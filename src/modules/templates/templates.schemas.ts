import { WarningSchema } from '../documents-core/text-tags.ts';
import { LocaleTag } from '../../http/locale-input.ts';
import { Type, type Static } from 'typebox';
import { Id, Nullable, PageQuery, Timestamp } from '../../http/schemas.ts';
import { SigningType } from '../documents-core/document-settings.schemas.ts';
import { FieldInput, FieldSchema } from '../documents-core/fields.schemas.ts';
import { SigningGroup } from '../documents-core/signers.schemas.ts';

/*
 * Templates: a file with signing roles and fields placed for those roles. Roles are shaped like a
 * document's signers (`order`), fields like a document's fields with `assignedTo` naming a role's
 * `order`. A document or campaign submission made from a template copies all three.
 */

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: '1-200 characters, not blank',
});
const Description = Type.String({
  maxLength: 2000,
  description: 'Free text for the organization; "" when none',
});
const Email = Type.String({ format: 'email', maxLength: 254 });

export const RoleSchema = Type.Object(
  {
    id: Id('rol'),
    name: Type.String({ description: 'What the role is called, e.g. "Tenant"' }),
    order: Type.Integer({
      description: 'Zero-based position in the signing order; fields name it in `assignedTo`',
    }),
    group: Type.Integer({
      description:
        "Signing group of this role's signers on documents made from the template; default: `order`",
    }),
    signerName: Nullable(
      Type.String({
        description: 'Fixed signer of this role on every document made from the template',
      }),
    ),
    signerEmail: Nullable(
      Type.String({
        description: 'Email of the fixed signer; null when each document names its own',
      }),
    ),
    locale: Nullable(
      Type.String({
        description:
          "Locale of this role's signers on documents made from the template (a signer's own wins); null: the document's, else the organization's",
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'TemplateRole' },
);
export type RoleT = Static<typeof RoleSchema>;

export const RoleInput = Type.Object(
  {
    name: Name,
    order: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 999, description: 'Default: after the last role' }),
    ),
    group: Type.Optional(SigningGroup),
    signerName: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          pattern: '\\S',
          description: 'Needs signerEmail; default: the role name',
        }),
      ),
    ),
    signerEmail: Type.Optional(Nullable(Email)),
    locale: Type.Optional(Nullable(LocaleTag)),
  },
  { additionalProperties: false },
);
export type RoleInputT = Static<typeof RoleInput>;

export const RolePatch = Type.Object(
  {
    name: Type.Optional(Name),
    order: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })),
    group: Type.Optional(Nullable(SigningGroup)),
    signerName: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
    ),
    signerEmail: Type.Optional(Nullable(Email)),
    locale: Type.Optional(Nullable(LocaleTag)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type RolePatchT = Static<typeof RolePatch>;

/** A document's field without `value`: a template is never filled in. */
const { value: _value, ...fieldProperties } = FieldSchema.properties;
export const TemplateFieldSchema = Type.Object(
  {
    ...fieldProperties,
    assignedTo: Type.Integer({ description: 'The `order` of the role who fills it' }),
  },
  { $id: 'TemplateField' },
);
export type TemplateFieldT = Static<typeof TemplateFieldSchema>;

const TemplateAllowReassignText =
  'The `allowReassign` of the documents made from it (a document or bulk send may say otherwise): whether the signer whose turn it is may hand over to someone else; default false';

const counts = Type.Object({ roles: Type.Integer(), fields: Type.Integer() });

export const TemplateListItem = Type.Object(
  {
    id: Id('tpl'),
    name: Type.String(),
    description: Type.String(),
    signingType: SigningType,
    allowReassign: Type.Boolean({ description: TemplateAllowReassignText }),
    fileSize: Type.Integer({ description: 'Bytes of the uploaded file; 0 before upload' }),
    pageCount: Nullable(Type.Integer({ description: 'Pages of the file; null before upload' })),
    documentHash: Type.String({
      description: 'SHA-256 hex of the file as uploaded; "" before upload',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    _count: counts,
  },
  { $id: 'TemplateListItem' },
);
export type TemplateListItemT = Static<typeof TemplateListItem>;

export const TemplateDetail = Type.Object(
  {
    ...TemplateListItem.properties,
    warnings: Type.Array(WarningSchema, {
      description:
        'What the last intake of the file reported (text tags that made no field, …); `[]` when none. Replaced at each upload',
    }),
    roles: Type.Array(RoleSchema),
    fields: Type.Array(TemplateFieldSchema),
  },
  { $id: 'TemplateDetail' },
);
export type TemplateDetailT = Static<typeof TemplateDetail>;

export const CreateTemplateBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    signingType: Type.Optional(SigningType),
    allowReassign: Type.Optional(Type.Boolean({ description: TemplateAllowReassignText })),
    roles: Type.Optional(Type.Array(RoleInput, { maxItems: 50 })),
    fields: Type.Optional(Type.Array(FieldInput, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
export type CreateTemplateInput = Static<typeof CreateTemplateBody>;

export const UpdateTemplateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    signingType: Type.Optional(SigningType),
    allowReassign: Type.Optional(Type.Boolean({ description: TemplateAllowReassignText })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateTemplateInput = Static<typeof UpdateTemplateBody>;

export const ListTemplatesQuery = Type.Object(
  {
    ...PageQuery,
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' }),
    ),
  },
  { additionalProperties: false },
);
export type ListTemplatesQueryT = Static<typeof ListTemplatesQuery>;

export const ListPartsQuery = Type.Object(PageQuery, { additionalProperties: false });
export type ListPartsQueryT = Static<typeof ListPartsQuery>;

export const RoleParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Template id' }),
  roleId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const TemplateFieldParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Template id' }),
  fieldId: Type.String({ minLength: 1, maxLength: 64 }),
});
