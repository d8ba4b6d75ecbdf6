import { Type, type Static } from 'typebox';
import { Id, NullableTimestamp, PageQuery, StringEnum, Timestamp } from '../../http/schemas.ts';
import { OtpMethod, ReminderFrequency } from '../documents-core/document-settings.schemas.ts';
import { Email, Phone } from '../documents-core/signers.schemas.ts';
import { LocaleTag } from '../../http/locale-input.ts';
import { BULK_SEND_STATUSES } from './bulk-send-status.ts';

/** Rows per bulk send (README, "Bulk send"). */
export const MAX_ROWS = 10_000;
/** Body limit of `POST /api/v1/bulk-sends`, JSON or CSV (the 1 MB of other routes would not hold 10,000 rows). */
export const BULK_BODY_LIMIT = 16 * 1024 * 1024;

export const BulkSend = Type.Object(
  {
    id: Id('bsd'),
    name: Type.String(),
    templateId: Type.String(),
    status: StringEnum(BULK_SEND_STATUSES, {
      description:
        '`queued` until the first document is created, `processing` while rows remain, then `completed` (or `cancelled`)',
    }),
    total: Type.Integer({ description: 'Rows accepted' }),
    sent: Type.Integer({ description: 'Rows whose document was created and sent' }),
    failed: Type.Integer({
      description:
        'Rows whose document could not be sent (e.g. the template lost its file meanwhile)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: NullableTimestamp,
  },
  {
    $id: 'BulkSend',
    description: 'A bulk send: one template sent to many recipients, one document per row',
  },
);
export type BulkSendT = Static<typeof BulkSend>;

const Value = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]);

export const BulkRow = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '\\S',
        description:
          "The document's name; default: the bulk send's name and the first signer's name",
      }),
    ),
    signers: Type.Array(
      Type.Object(
        {
          role: Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'A template role (by name, case-insensitive) without a fixed signer',
          }),
          name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
          email: Email,
          phone: Type.Optional(Phone),
          locale: Type.Optional(LocaleTag),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
    locale: Type.Optional(
      Type.String({
        ...LocaleTag,
        description:
          "This row's document `locale` (a signer's own `locale` wins); default: the role's, else the organization's",
      }),
    ),
    values: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Value, {
        maxProperties: 500,
        description:
          'Prefill values by template field label or id: shown to the signer, editable unless the field is `readOnly`',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BulkRowT = Static<typeof BulkRow>;

const settings = {
  name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: "Default: the template's name",
    }),
  ),
  message: Type.Optional(Type.String({ maxLength: 5000 })),
  emailSubject: Type.Optional(Type.String({ maxLength: 200 })),
  emailMessage: Type.Optional(Type.String({ maxLength: 5000 })),
  expiresAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'ISO 8601 with a time zone; must be in the future',
    }),
  ),
  reminderFrequency: Type.Optional(ReminderFrequency),
  otpMethod: Type.Optional(OtpMethod),
  allowReassign: Type.Optional(
    Type.Boolean({
      description:
        "The `allowReassign` of every document of the bulk send (whether the signer whose turn it is may hand over); default: the template's",
    }),
  ),
};

export const CreateBulkSendBody = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 64 }),
    ...settings,
    rows: Type.Array(BulkRow, { minItems: 1, maxItems: MAX_ROWS }),
  },
  { additionalProperties: false },
);
export type CreateBulkSendInput = Static<typeof CreateBulkSendBody>;
/** What every document of the bulk send shares. */
export type BulkSettings = Omit<CreateBulkSendInput, 'rows' | 'templateId' | 'name'>;

export const CsvBody = Type.String({
  description:
    'RFC 4180 CSV, UTF-8 with or without a BOM: a header row, then one row per document. Columns: `<role> name`, `<role> email`, ' +
    "`<role> phone` and `<role> locale` (optional) for each template role without a fixed signer, `document name` and `locale` (optional, the document's), and any template field " +
    'label (a prefill value). Errors name `row N` (data rows counted from 1, the header not counted).',
});

export const CreateBulkSendQuery = Type.Object(
  {
    templateId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'With a `text/csv` body only (required then)',
      }),
    ),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '\\S',
        description: 'With a `text/csv` body only',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListBulkSendsQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(StringEnum(BULK_SEND_STATUSES)) },
  { additionalProperties: false },
);
export type ListBulkSendsQueryT = Static<typeof ListBulkSendsQuery>;

export const CancelBulkSendBody = Type.Object(
  {
    cancelDocuments: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Also cancel the documents already sent (in the background, like `POST /documents/{id}/cancel` each)',
      }),
    ),
  },
  { additionalProperties: false },
);
