import { Type, type Static } from 'typebox';
import { Id, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.ts';
import { DOCUMENT_STATUSES, SIGNER_STATUSES } from '../../db/database.ts';
import { SigningType } from '../documents-core/document-settings.schemas.ts';
import { SIGNER_ROLES } from '../documents-core/signers.schemas.ts';
import { FIELD_TYPES } from '../documents-core/fields.schemas.ts';
import { VALUE_MAX_CHARS } from '../documents-core/field-types.ts';

/*
 * Request and response shapes of the signer-facing JSON API (`/api/v1/signing/{token}…`, public,
 * authenticated by the signing token) and of the two sender endpoints that manage a signer's
 * signing (`…/signers/{signerId}/link`, `…/signers/{signerId}/verification`).
 * The signing page (src/web) is built on these; keep them stable.
 */

/** Limits the signing rules enforce; exported so the page can mirror them. */
export const SIGNING_LIMITS = {
  /** A drawn signature is a PNG data URL of at most this many characters (1 MB). */
  drawnSignatureMaxChars: 1024 * 1024,
  typedSignatureMaxChars: 200,
  declineReasonMaxChars: 1000,
  /** Maximum length of one text value. */
  valueMaxChars: VALUE_MAX_CHARS,
  /** Identity evidence (KYC) image: PNG, JPEG or WebP, at most 10 MB. */
  identityMaxBytes: 10 * 1024 * 1024,
  otpDigits: 6,
} as const;

export const IDENTITY_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

/** `none`: no KYC; `required`: evidence must be uploaded; `pending`: awaiting the sender's review. */
const VERIFICATION_STATUSES = ['none', 'required', 'pending', 'approved', 'rejected'] as const;

export const TokenParams = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'The secret token of the signing link `PUBLIC_URL/sign/{token}`',
  }),
});

export const SigningField = Type.Object({
  id: Id('fld'),
  type: StringEnum(FIELD_TYPES),
  label: Type.String(),
  page: Type.Integer({ description: '1-based page number' }),
  x: Type.Number({ description: 'Left edge, % of page width from the left' }),
  y: Type.Number({ description: 'Top edge, % of page height from the top' }),
  width: Type.Number({ description: '% of page width' }),
  height: Type.Number({ description: '% of page height' }),
  required: Type.Boolean(),
  readOnly: Type.Boolean({ description: 'Shown with its defaultValue; not editable' }),
  placeholder: Nullable(Type.String()),
  defaultValue: Nullable(Type.String()),
  options: Nullable(
    Type.Array(Type.String(), { description: 'Choices of a dropdown or radio field' }),
  ),
});

export const SigningSession = Type.Object({
  document: Type.Object({
    id: Id('doc'),
    name: Type.String(),
    message: Type.String({ description: 'Message from the sender; "" when none' }),
    status: StringEnum(DOCUMENT_STATUSES),
    signingType: SigningType,
    pageCount: Type.Integer({
      description: 'Pages of the PDF served by `GET /api/v1/signing/{token}/file`',
    }),
    expiresAt: NullableTimestamp,
    senderName: Type.String({ description: 'Name of the sending organization' }),
    brandColor: Nullable(
      Type.String({
        description: "The sending organization's colour `#RRGGBB`; null: Signet's own",
      }),
    ),
    logoUrl: Nullable(
      Type.String({ description: "The sending organization's logo; null when it has none" }),
    ),
  }),
  signer: Type.Object({
    id: Id('sgn'),
    name: Type.String(),
    email: Type.String(),
    role: StringEnum(SIGNER_ROLES),
    status: StringEnum(SIGNER_STATUSES),
    order: Type.Integer(),
    group: Type.Integer({ description: 'Signing group; default: `order`' }),
  }),
  isYourTurn: Type.Boolean({
    description:
      'False in sequential mode while a signer or approver of an earlier group has not finished',
  }),
  consent: Type.Object(
    {
      required: Type.Boolean({ description: "The organization's `requireConsent`" }),
      given: Type.Boolean({ description: 'The signer accepted the current text' }),
      text: Type.String({
        description: 'The disclosure to show before the document, exactly as it will be kept',
      }),
      locale: Type.String(),
    },
    {
      description:
        'Consent to electronic records and signatures: when `required` and not `given`, show `text` before the document and send `POST …/consent` (or `consent: true` with `complete`)',
    },
  ),
  canReassign: Type.Boolean({
    description:
      'True when the signer may hand over to someone else now (`POST …/reassign`): the document has `allowReassign`, the signer has no access code, and it is their turn',
  }),
  otpRequired: Type.Boolean({
    description: 'True when `complete` needs a one-time code: call `POST …/otp` first',
  }),
  otpMethod: Nullable(StringEnum(['email', 'sms'] as const), {
    description: 'How the code goes (the signer’s `otpMethod`, else the document’s); null: none',
  }),
  otpPhone: Nullable(
    Type.String({ description: 'With `otpMethod: "sms"`: the masked phone, `+1 ••• ••• 0123`' }),
  ),
  verification: Type.Object({
    required: Type.Boolean({ description: 'The document requires identity evidence (KYC)' }),
    status: StringEnum(VERIFICATION_STATUSES, {
      description:
        '`required`: upload `POST …/identity`; `pending`: awaiting review; `approved`: may complete; `rejected`: upload again',
    }),
  }),
  fields: Type.Array(SigningField, { description: 'The fields this signer fills' }),
  recipients: Type.Array(
    Type.Object({
      name: Type.String(),
      role: StringEnum(SIGNER_ROLES),
      status: StringEnum(SIGNER_STATUSES),
      order: Type.Integer(),
      group: Type.Integer({
        description: 'Signing group: in sequential mode the members of a group sign together',
      }),
    }),
    { description: 'Everyone on the document, in signing order (no email addresses)' },
  ),
});
export type SigningSessionT = Static<typeof SigningSession>;

export const OtpResult = Type.Object({
  method: StringEnum(['email', 'sms'] as const, {
    description: 'How the code went: by email, or by SMS to the signer’s phone',
  }),
  sentTo: Type.String({
    description: 'Where the code went, masked: `j***@example.com`, or a phone as `+1 ••• ••• 0123`',
  }),
  expiresAt: Timestamp,
  resendAfter: Timestamp,
});
export type OtpResultT = Static<typeof OtpResult>;

const FieldValue = Type.Union([
  Type.String({ maxLength: SIGNING_LIMITS.drawnSignatureMaxChars }),
  Type.Number(),
  Type.Boolean(),
]);

export const SignatureInput = Type.Object(
  {
    kind: StringEnum(['typed', 'drawn'] as const),
    value: Type.String({
      minLength: 1,
      maxLength: SIGNING_LIMITS.drawnSignatureMaxChars,
      description:
        'typed: the name as typed (1-200 chars); drawn: a `data:image/png;base64,…` URL of at most 1 MB',
    }),
  },
  { additionalProperties: false },
);
export type SignatureInputT = Static<typeof SignatureInput>;

export const CompleteBody = Type.Object(
  {
    values: Type.Record(Type.String({ minLength: 1, maxLength: 64 }), FieldValue, {
      default: {},
      description:
        'Field id → value. date: ISO 8601 date; number: a number or numeric string; checkbox: boolean or "true"/"false"; dropdown/radio: one of options; email: an address. Signature and initials fields take `signature` unless given here (same rules).',
    }),
    signature: Type.Optional(SignatureInput),
    otp: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6}$',
        description: 'The 6-digit code (emailed or texted), when `otpRequired`',
      }),
    ),
    consent: Type.Optional(
      Type.Boolean({
        description:
          'true: the signer accepts the consent text of the session (`consent.text`), when `consent.required` and not yet `given`; without it such a signer gets 409 `consent_required`',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CompleteInput = Static<typeof CompleteBody>;

export const CompleteResult = Type.Object({
  documentId: Id('doc'),
  signerId: Id('sgn'),
  status: StringEnum(SIGNER_STATUSES),
  signedAt: Timestamp,
  documentStatus: StringEnum(DOCUMENT_STATUSES, {
    description:
      'Stays `pending` after the last signature until the signed PDF is produced, then `completed`',
  }),
  allSigned: Type.Boolean({
    description: 'Every signer and approver has completed; the signed PDF is being produced',
  }),
  redirectUrl: Nullable(
    Type.String({
      description:
        'Where to send the signer now: the document’s `redirectUrl`; null when it has none or the signer is embedded',
    }),
  ),
});
export type CompleteResultT = Static<typeof CompleteResult>;

export const DeclineBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: SIGNING_LIMITS.declineReasonMaxChars,
      pattern: '\\S',
    }),
  },
  { additionalProperties: false },
);
export type DeclineInput = Static<typeof DeclineBody>;

export const DeclineResult = Type.Object({
  documentId: Id('doc'),
  signerId: Id('sgn'),
  status: StringEnum(SIGNER_STATUSES),
  documentStatus: StringEnum(DOCUMENT_STATUSES),
  redirectUrl: Nullable(
    Type.String({
      description:
        'Where to send the signer now: the document’s `redirectUrl`; null when it has none or the signer is embedded',
    }),
  ),
});
export type DeclineResultT = Static<typeof DeclineResult>;

export const IdentityResult = Type.Object({
  attachmentId: Type.String(),
  verification: StringEnum(VERIFICATION_STATUSES),
  documentStatus: StringEnum(DOCUMENT_STATUSES),
});
export type IdentityResultT = Static<typeof IdentityResult>;

export const SignerLinkParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'Document id' }),
  signerId: Type.String({ minLength: 1, maxLength: 64 }),
});

export const SigningLink = Type.Object({
  url: Type.String({ description: '`PUBLIC_URL/sign/{token}`; treat it as a secret' }),
  expiresAt: Timestamp,
});
export type SigningLinkT = Static<typeof SigningLink>;

export const VerificationBody = Type.Object(
  {
    decision: StringEnum(['approve', 'reject'] as const),
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Told to the signer on reject' }),
    ),
  },
  { additionalProperties: false },
);
export type VerificationInput = Static<typeof VerificationBody>;

export const VerificationResult = Type.Object({
  documentId: Id('doc'),
  signerId: Id('sgn'),
  verification: StringEnum(VERIFICATION_STATUSES),
  documentStatus: StringEnum(DOCUMENT_STATUSES),
});
export type VerificationResultT = Static<typeof VerificationResult>;

export const ConsentResult = Type.Object({
  signerId: Id('sgn'),
  locale: Type.String({ description: 'The locale of the text accepted' }),
  sha256: Type.String({ description: 'SHA-256 (hex) of the exact text accepted (UTF-8)' }),
  consentedAt: Timestamp,
});
