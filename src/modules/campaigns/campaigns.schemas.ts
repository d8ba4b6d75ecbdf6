import { Type, type Static } from 'typebox';
import { LocaleTag } from '../../http/locale-input.ts';
import {
  Id,
  Nullable,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { CAMPAIGN_STATUSES, DOCUMENT_STATUSES, SIGNER_STATUSES } from '../../db/database.ts';

/** Submissions a campaign takes when `maxSubmissions` is not given, and the most it may be set to. */
export const MAX_SUBMISSIONS_LIMIT = 1_000_000;
/** The page's accent colour when `brandColor` is not given (Signet's own). */
export const DEFAULT_BRAND_COLOR = '#4338CA';

const Status = StringEnum(CAMPAIGN_STATUSES);
const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: '1-200 characters, not blank',
});
const BrandColor = Type.String({
  pattern: '^#[0-9A-Fa-f]{6}$',
  description: 'Hex colour `#RRGGBB`',
});
const RedirectUrl = Type.String({
  maxLength: 2000,
  description:
    'http(s) URL the visitor is sent to after submitting, at most 2000 characters; "" for none',
});
const MaxSubmissions = Type.Integer({
  minimum: 1,
  maximum: MAX_SUBMISSIONS_LIMIT,
  description: `At least 1; default ${MAX_SUBMISSIONS_LIMIT} (the most allowed). The campaign closes when it is reached.`,
});

const common = {
  id: Id('cmp'),
  name: Type.String(),
  slug: Type.String({
    description:
      'Slugified name plus `-` and 6 random characters; read-only. The public link is `url`',
  }),
  url: Type.String({ description: 'The public signing link to share: `PUBLIC_URL/c/{slug}`' }),
  status: Status,
  submissionCount: Type.Integer({ description: 'Submissions received so far' }),
  maxSubmissions: Type.Integer({ minimum: 1 }),
  collectPhone: Type.Boolean(),
  requireOtp: Type.Boolean(),
  requireKyc: Type.Boolean(),
  expiresAt: NullableTimestamp,
  brandColor: Type.String({
    description: `Hex colour \`#RRGGBB\`; ${DEFAULT_BRAND_COLOR} unless set`,
  }),
  redirectUrl: Type.String({ description: '"" when none' }),
  welcomeTitle: Type.String({ description: '"" when none' }),
  welcomeMessage: Type.String({ description: '"" when none' }),
  locale: Nullable(
    Type.String({
      description:
        "Locale of the form's page and mails; null: the visitor's browser language, else the organization's `defaultLocale`",
    }),
  ),
  templateId: Id('tpl'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
type Common = typeof common;
const pick = <K extends keyof Common>(...keys: K[]) =>
  Object.fromEntries(keys.map((k) => [k, common[k]])) as Pick<Common, K>;

/** The full campaign (get, patch). */
export const Campaign = Type.Object(common, { $id: 'Campaign' });
export type CampaignT = Static<typeof Campaign>;

export const CampaignListItem = Type.Object(
  pick(
    'id',
    'name',
    'slug',
    'url',
    'status',
    'submissionCount',
    'maxSubmissions',
    'collectPhone',
    'requireOtp',
    'expiresAt',
    'brandColor',
    'templateId',
    'createdAt',
    'updatedAt',
  ),
  { $id: 'CampaignListItem' },
);
export type CampaignListItemT = Static<typeof CampaignListItem>;

export const CreatedCampaign = Type.Object(
  pick(
    'id',
    'name',
    'slug',
    'url',
    'status',
    'maxSubmissions',
    'expiresAt',
    'collectPhone',
    'requireOtp',
    'brandColor',
    'redirectUrl',
    'templateId',
    'createdAt',
  ),
  { $id: 'CreatedCampaign' },
);
export type CreatedCampaignT = Static<typeof CreatedCampaign>;

const editable = {
  welcomeTitle: Type.Optional(Type.String({ maxLength: 200 })),
  welcomeMessage: Type.Optional(Type.String({ maxLength: 1000 })),
  locale: Type.Optional(Nullable(LocaleTag)),
  maxSubmissions: Type.Optional(MaxSubmissions),
  expiresAt: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 with a time zone; must be in the future; null for none',
      }),
    ),
  ),
  collectPhone: Type.Optional(
    Type.Boolean({ description: 'Ask the visitor for a phone number; default true' }),
  ),
  requireOtp: Type.Optional(
    Type.Boolean({
      description: 'Email the visitor a 6-digit code to confirm the address; default false',
    }),
  ),
  requireKyc: Type.Optional(Type.Boolean({ description: 'Default false' })),
  brandColor: Type.Optional(BrandColor),
  redirectUrl: Type.Optional(RedirectUrl),
};

export const CreateCampaignBody = Type.Object(
  {
    templateId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A template of your organization with a file and at least one field',
    }),
    name: Name,
    ...editable,
  },
  { additionalProperties: false },
);
export type CreateCampaignInput = Static<typeof CreateCampaignBody>;

export const UpdateCampaignBody = Type.Object(
  {
    templateId: Type.Optional(CreateCampaignBody.properties.templateId),
    name: Type.Optional(Name),
    ...editable,
    status: Type.Optional(Status),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCampaignInput = Static<typeof UpdateCampaignBody>;

export const ListCampaignsQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    search: Type.Optional(
      Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' }),
    ),
  },
  { additionalProperties: false },
);
export type ListCampaignsQueryT = Static<typeof ListCampaignsQuery>;

export const ListSubmissionsQuery = Type.Object(PageQuery, { additionalProperties: false });
export type ListSubmissionsQueryT = Static<typeof ListSubmissionsQuery>;

const SubmissionSigner = Type.Object({
  id: Id('sgn'),
  name: Type.String(),
  email: Type.String(),
  status: StringEnum(SIGNER_STATUSES),
  signedAt: NullableTimestamp,
});

export const Submission = Type.Object(
  {
    id: Id('doc'),
    name: Type.String(),
    status: StringEnum(DOCUMENT_STATUSES),
    completedAt: NullableTimestamp,
    createdAt: Timestamp,
    signers: Type.Array(SubmissionSigner),
  },
  { $id: 'CampaignSubmission' },
);
export type SubmissionT = Static<typeof Submission>;
