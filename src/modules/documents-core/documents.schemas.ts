import { Type, type Static } from 'typebox';
import { DOCUMENT_STATUSES } from '../../db/database.ts';
import { LocaleTag } from '../../http/locale-input.ts';
import { REDIRECT_URL_MAX } from './redirect-url.ts';
import {
  Id,
  Nullable,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { SignerInput, SignerSchema } from './signers.schemas.ts';
import { FieldInput, FieldSchema, type FieldInputT } from './fields.schemas.ts';
import { AnchoredFieldInput } from './anchors.ts';
import { WarningSchema } from './text-tags.ts';
import { ActionRequired, Attachment } from './document-detail-parts.schemas.ts';
import {
  AllowReassignText,
  Message,
  Name,
  OtpMethod,
  REDIRECT_URL_TEXT,
  ReminderFrequency,
  SEND_COMPLETED_COPY_TEXT,
  SigningType,
} from './document-settings.schemas.ts';

/** The list filter accepts every status but `action_required` (documented in /openapi.json). */
const LISTABLE_STATUSES = DOCUMENT_STATUSES.filter((s) => s !== 'action_required');

export const DocumentListItem = Type.Object(
  {
    id: Id('doc'),
    name: Type.String(),
    status: StringEnum(DOCUMENT_STATUSES),
    signingType: SigningType,
    fileSize: Type.Integer({ description: 'Bytes of the uploaded file; 0 before upload' }),
    expiresAt: NullableTimestamp,
    completedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    templateId: Nullable(Type.String()),
    campaignId: Nullable(Type.String()),
    bulkSendId: Nullable(Type.String()),
    folderId: Nullable(Type.String()),
    allowReassign: Type.Boolean({ description: AllowReassignText }),
    _count: Type.Object({
      signers: Type.Integer(),
      fields: Type.Integer(),
      attachments: Type.Integer(),
    }),
  },
  { $id: 'DocumentListItem' },
);
export type DocumentListItemT = Static<typeof DocumentListItem>;

export const DocumentDetail = Type.Object(
  {
    ...DocumentListItem.properties,
    documentHash: Type.String({
      description: 'SHA-256 hex of the file as uploaded; "" before upload',
    }),
    signedFileHash: Type.String({
      description: 'SHA-256 hex of the signed PDF; "" until completed',
    }),
    message: Type.String(),
    emailSubject: Nullable(Type.String()),
    emailMessage: Nullable(Type.String()),
    locale: Nullable(
      Type.String({
        description:
          "Locale of its signers' pages and mails (a signer's own wins); null: the organization's `defaultLocale`",
      }),
    ),
    reminderFrequency: ReminderFrequency,
    otpMethod: OtpMethod,
    requireKyc: Type.Boolean(),
    sendCompletedCopy: Type.Boolean({ description: SEND_COMPLETED_COPY_TEXT }),
    redirectUrl: Nullable(Type.String({ description: REDIRECT_URL_TEXT })),
    actionRequired: ActionRequired,
    warnings: Type.Array(WarningSchema, {
      description:
        'What the last intake of the file reported (text tags that made no field, …); `[]` when none. Replaced at each upload',
    }),
    signers: Type.Array(SignerSchema),
    fields: Type.Array(FieldSchema),
    attachments: Type.Array(Attachment),
  },
  { $id: 'DocumentDetail' },
);
export type DocumentDetailT = Static<typeof DocumentDetail>;

export const CreatedDocument = Type.Object({
  id: Id('doc'),
  name: Type.String(),
  status: StringEnum(DOCUMENT_STATUSES),
  signingType: SigningType,
  message: Type.String(),
  expiresAt: NullableTimestamp,
  folderId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const editable = {
  signingType: Type.Optional(SigningType),
  message: Type.Optional(Message),
  expiresAt: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 with a time zone; must be in the future',
      }),
    ),
  ),
  folderId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  emailSubject: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  emailMessage: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  locale: Type.Optional(Nullable(LocaleTag)),
  otpMethod: Type.Optional(OtpMethod),
  reminderFrequency: Type.Optional(ReminderFrequency),
  requireKyc: Type.Optional(Type.Boolean()),
  allowReassign: Type.Optional(Type.Boolean({ description: AllowReassignText })),
  sendCompletedCopy: Type.Optional(
    Type.Boolean({ default: true, description: SEND_COMPLETED_COPY_TEXT }),
  ),
  redirectUrl: Type.Optional(
    Nullable(
      Type.String({ minLength: 1, maxLength: REDIRECT_URL_MAX, description: REDIRECT_URL_TEXT }),
    ),
  ),
};

export const CreateDocumentBody = Type.Object(
  {
    name: Name,
    ...editable,
    templateId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "A template of your organization: the document gets a copy of its file and fields, and its roles' fixed signers; `signers` without an `order` fill the other roles, lowest order first",
      }),
    ),
    signers: Type.Optional(Type.Array(SignerInput, { maxItems: 50 })),
    fields: Type.Optional(
      Type.Array(Type.Union([FieldInput, AnchoredFieldInput]), {
        maxItems: 500,
        description:
          'Fields to place; with `anchor` instead of `page`/`x`/`y`/`width`/`height`, every occurrence of its text in the file copied from `templateId` (a document without a file: 409 `missing_file`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateDocumentBodyT = Static<typeof CreateDocumentBody>;
/** A create whose inline fields are placed (anchors resolved against the file): what buildNewDocument takes. */
export type CreateDocumentInput = Omit<CreateDocumentBodyT, 'fields'> & { fields?: FieldInputT[] };

export const UpdateDocumentBody = Type.Object(
  { name: Type.Optional(Name), ...editable },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateDocumentInput = Static<typeof UpdateDocumentBody>;

export const ListDocumentsQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(StringEnum(LISTABLE_STATUSES)),
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' }),
    ),
    folderId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    bulkSendId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only the documents of this bulk send (`bsd_…`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListDocumentsQueryT = Static<typeof ListDocumentsQuery>;

export const AuditEntry = Type.Object({
  id: Type.String(),
  action: Type.String(),
  details: Type.String(),
  ipAddress: Type.String(),
  userAgent: Type.String(),
  geoCity: Type.String(),
  geoCountry: Type.String(),
  createdAt: Timestamp,
});

export const SendResult = Type.Object({
  id: Type.String(),
  status: Type.String(),
  signerCount: Type.Integer(),
  sentAt: Timestamp,
});

export const CancelResult = Type.Object({
  id: Type.String(),
  status: Type.String(),
  cancelledSigners: Type.Integer(),
});

export const UPLOAD_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/webp',
] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export const UploadBody = Type.Object(
  {
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255, default: 'document.pdf' })),
    contentType: Type.Optional(StringEnum(UPLOAD_CONTENT_TYPES)),
    fileSize: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Bytes, at most 50 MB (52428800); more is 413' }),
    ),
    textTags: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Read text tags (`{{signature:1}}`, `{{text:2;label=City}}`) from the PDF: each becomes a field at its place and is removed from the file signers see (see `warnings`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UploadInput = Static<typeof UploadBody>;

/**
 * The OpenAPI text on files that reach the S3 bucket without passing through Signet (presigned
 * PUT), for every route that settles them: one wording of one rule.
 */
export const DIRECT_UPLOAD_VERIFICATION =
  "With `STORAGE=s3` the file goes from the client straight to the bucket, so it is verified on the document's next use: " +
  'this detail, `send` or `download` (list items are not verified: that would read every pending object of the page, so a list shows ' +
  '`fileSize` 0 until then). While the object has not arrived, the document simply has no new file (it keeps a previous one). ' +
  'Once it has: at most the declared `fileSize` or 50 MB (413 `payload_too_large`), first bytes of the declared type and a readable PDF or ' +
  'image (415 `unsupported_media_type`). A refused upload is dropped, its object deleted and `document.upload_refused` written to the ' +
  'audit log; the request that found it answers 413/415, later ones answer as if nothing had been sent. Otherwise the object is ' +
  'streamed once: SHA-256 computed, an image converted to a one-page PDF (written to the bucket), the page count set, and the bytes ' +
  'copied to a key only Signet writes (so a second PUT to the still-valid URL cannot change a recorded file); then `fileSize` and ' +
  '`documentHash` appear and the audit log gets `document.uploaded` (with no IP address: the bytes did not pass through Signet). ' +
  'Requests verifying one document at once, on one instance or several, record it exactly once. An upload whose object never ' +
  'arrives is forgotten an hour after its URL expired.';

export const UploadTicket = Type.Object({
  uploadUrl: Type.String(),
  fileKey: Type.String(),
  expiresIn: Type.Integer({ description: 'Seconds the uploadUrl stays valid' }),
  method: Type.Literal('PUT'),
  headers: Type.Record(Type.String(), Type.String()),
  textTags: Type.Boolean({ description: 'Whether the text tags of the file sent are read' }),
});
