import { Type, type Static } from 'typebox';
import { SIGNER_STATUSES } from '../../db/database.ts';
import { LocaleTag } from '../../http/locale-input.ts';
import {
  Id,
  NullableTimestamp,
  Nullable,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';

export const SIGNER_ROLES = ['signer', 'approver', 'cc'] as const;
/** How a signer gets their signing link (README "Embedding"). */
const SIGNER_DELIVERIES = ['email', 'embedded'] as const;
const DELIVERY_TEXT =
  '`email` (default): invitation, your-turn and reminder mails carry the link; `embedded`: none of those mails, you get the link from `POST /api/v1/documents/{id}/signers/{signerId}/link` and show it in your own site (README "Embedding")';
/** Roles whose completion the document waits for; `cc` only receives copies. */
export const SIGNING_ROLES: readonly string[] = ['signer', 'approver'];

export const SignerSchema = Type.Object(
  {
    id: Id('sgn'),
    name: Type.String(),
    email: Type.String(),
    phone: Nullable(Type.String({ description: 'E.164 when given in international form' })),
    otpMethod: Nullable(StringEnum(['email', 'sms'] as const), {
      description: "This signer's one-time code method; null: the document's `otpMethod`",
    }),
    role: StringEnum(SIGNER_ROLES),
    status: StringEnum(SIGNER_STATUSES),
    order: Type.Integer({ description: 'Zero-based position in the signing order' }),
    group: Type.Integer({
      description:
        'Signing group: in a sequential document the signers of the lowest group with someone still to act sign, in any order among themselves; default: `order`',
    }),
    signedAt: NullableTimestamp,
    locale: Nullable(
      Type.String({
        description:
          "The signer's own locale; null: it reads the document's, else the organization's `defaultLocale`",
      }),
    ),
    delivery: StringEnum(SIGNER_DELIVERIES, { description: DELIVERY_TEXT }),
    createdAt: Timestamp,
  },
  { $id: 'Signer' },
);
export type SignerT = Static<typeof SignerSchema>;

export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Phone = Nullable(
  Type.String({
    minLength: 3,
    maxLength: 32,
    pattern: '^\\+?[0-9 ().-]{3,32}$',
    description:
      'A number in international form (`+14155550123`) is checked and kept in E.164; codes by SMS need one',
  }),
);
/** A signer's own code method, overriding the document's (`null`: the document's). */
const SignerOtpMethod = Nullable(StringEnum(['email', 'sms'] as const), {
  description:
    "Overrides the document's `otpMethod` for this signer: `email`, `sms` (needs `phone`), or null (the document's)",
});

/**
 * A signer's (or template role's) turn in a sequential document. Signers sharing a group sign in
 * any order among themselves; the next group's turn starts once every member has finished.
 */
export const SigningGroup = Type.Integer({
  minimum: 0,
  maximum: 999,
  description:
    'Signing group (sequential documents): signers sharing a group sign in any order among themselves; the next group starts once every member has finished. Default: `order`',
});

/** Write-only: stored as a keyed hash and never returned (src/modules/signing/access-codes.ts). */
const AccessCode = Nullable(
  Type.String({
    minLength: 4,
    maxLength: 64,
    pattern: '\\S',
    description:
      'A code you give the signer out of band (4-64 characters; write-only, stored hashed). The signing page asks for it before it shows anything of the document; the signing API needs `POST /api/v1/signing/{token}/access` first. `null` removes it.',
  }),
);

export const SignerInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    email: Email,
    role: Type.Optional(StringEnum(SIGNER_ROLES, { default: 'signer' })),
    order: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 999, description: 'Default: after the last signer' }),
    ),
    group: Type.Optional(SigningGroup),
    phone: Type.Optional(Phone),
    locale: Type.Optional(Nullable(LocaleTag)),
    accessCode: Type.Optional(AccessCode),
    delivery: Type.Optional(
      StringEnum(SIGNER_DELIVERIES, { default: 'email', description: DELIVERY_TEXT }),
    ),
    otpMethod: Type.Optional(SignerOtpMethod),
  },
  { additionalProperties: false },
);
export type SignerInputT = Static<typeof SignerInput>;

export const SignerPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
    email: Type.Optional(Email),
    role: Type.Optional(StringEnum(SIGNER_ROLES)),
    order: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })),
    group: Type.Optional(Nullable(SigningGroup)),
    phone: Type.Optional(Phone),
    locale: Type.Optional(Nullable(LocaleTag)),
    accessCode: Type.Optional(AccessCode),
    delivery: Type.Optional(StringEnum(SIGNER_DELIVERIES, { description: DELIVERY_TEXT })),
    otpMethod: Type.Optional(SignerOtpMethod),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SignerPatchT = Static<typeof SignerPatch>;

export const SignerParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Document id' }),
  signerId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ListSignersQuery = Type.Object(PageQuery, { additionalProperties: false });
export type ListSignersQueryT = Static<typeof ListSignersQuery>;
