import { Type, type Static } from 'typebox';
import { Id, Nullable, NullableTimestamp, StringEnum } from '../../http/schemas.ts';
import { DOCUMENT_STATUSES } from '../../db/database.ts';
import { CompleteBody, SigningField } from '../signing/signing.schemas.ts';
import { SLUG_PATTERN } from './campaign-rules.ts';

/*
 * The public, key-less JSON API behind `PUBLIC_URL/c/{slug}`: what the page shows, the emailed
 * code, and the submission. Anyone holding the link may call it, so it reveals only what the
 * visitor needs: no ids of the organization's other resources, no signer addresses.
 */

export const SlugParams = Type.Object({
  slug: Type.String({
    minLength: 3,
    maxLength: 80,
    pattern: SLUG_PATTERN,
    description: 'The campaign slug of the link `PUBLIC_URL/c/{slug}`',
  }),
});

export const PublicCampaign = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  status: Type.Literal('active', {
    description: 'Always `active`: a paused, closed or expired campaign answers 409',
  }),
  welcomeTitle: Type.String({ description: '"" when none' }),
  welcomeMessage: Type.String({ description: '"" when none' }),
  brandColor: Type.String({ description: '`#RRGGBB`' }),
  senderName: Type.String({ description: 'Name of the organization running the campaign' }),
  logoUrl: Nullable(Type.String(), {
    description: "The organization's logo; null when it has none",
  }),
  collectPhone: Type.Boolean({
    description: 'Ask for a phone number (required in the submission)',
  }),
  requireOtp: Type.Boolean({
    description: 'Confirm the email address with an emailed code: `POST …/otp`, then send `otp`',
  }),
  requireKyc: Type.Boolean({
    description:
      'Identity evidence is needed before signing: the submission answers a `signingUrl` to continue on',
  }),
  expiresAt: NullableTimestamp,
  document: Type.Object({
    name: Type.String(),
    pageCount: Type.Integer({ description: 'Pages of the PDF served by `GET …/file`' }),
  }),
  role: Type.Object({ name: Type.String({ description: 'The role the visitor signs as' }) }),
  fields: Type.Array(SigningField, {
    description: 'The fields the visitor fills; `values` in the submission are keyed by these ids',
  }),
});
export type PublicCampaignT = Static<typeof PublicCampaign>;

const Email = Type.String({ format: 'email', maxLength: 254 });

export const OtpBody = Type.Object({ email: Email }, { additionalProperties: false });

export const SubmissionBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: "The visitor's full name",
    }),
    email: Email,
    phone: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 32,
        pattern: '^\\+?[0-9 ().-]{3,32}$',
        description: 'Required when `collectPhone`',
      }),
    ),
    otp: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6}$',
        description: 'The emailed 6-digit code, when `requireOtp`',
      }),
    ),
    values: Type.Optional(CompleteBody.properties.values),
    signature: CompleteBody.properties.signature,
  },
  { additionalProperties: false },
);
export type SubmissionBodyT = Static<typeof SubmissionBody>;

export const SubmissionResult = Type.Object({
  id: Id('doc'),
  status: StringEnum(DOCUMENT_STATUSES, {
    description:
      '`pending` until the signed PDF is produced (then `completed`), or while later roles still have to sign',
  }),
  allSigned: Type.Boolean({
    description:
      'True when nobody else has to sign (the signed copy follows by mail once produced); false while later roles still have to',
  }),
  redirectUrl: Type.String({
    description: 'Where to send the visitor now; "" when the campaign has none',
  }),
  signingUrl: Type.String({
    description:
      'Only for `requireKyc` campaigns: the visitor’s own signing link, where they upload identity evidence and sign once it is approved; "" otherwise',
  }),
});
export type SubmissionResultT = Static<typeof SubmissionResult>;
