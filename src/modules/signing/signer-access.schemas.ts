import { type Static, Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.ts';
import { ACCESS_CODE_MAX } from './access-codes.ts';

export const AccessBody = Type.Object(
  {
    accessCode: Type.String({
      minLength: 1,
      maxLength: ACCESS_CODE_MAX,
      description: 'The code the sender gave the signer',
    }),
  },
  { additionalProperties: false },
);

export const AccessResult = Type.Object({
  session: Type.String({
    description:
      'Send it as `X-Signing-Session` on every other call of this signing link (and of any other link of the same signer). Keep it in memory or `sessionStorage`, never in a cookie.',
  }),
  expiresAt: Timestamp,
});

export const ResendResult = Type.Object({
  signerId: Id('sgn'),
  sentTo: Type.String({ description: 'The address the invitation was mailed to' }),
  expiresAt: Timestamp,
});

/** Bounds of `expiresIn` (seconds) of a signing link made by the API (README "Embedding"). */
export const LINK_EXPIRES_IN = {
  min: 60,
  /** Longest for an embedded signer, and the link's default life for them: 24 h and 1 h. */
  embeddedMax: 24 * 3600,
  embeddedDefault: 3600,
  /** Longest for a signer reached by email (their links' usual life, signing-links.ts). */
  emailMax: 30 * 24 * 3600,
} as const;

export const SigningLinkBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: LINK_EXPIRES_IN.min,
        maximum: LINK_EXPIRES_IN.emailMax,
        description:
          'Seconds the link lives. Embedded signers: 60 to 86400, default 3600. Signers reached by email: 60 to 2592000, default 30 days. Never past the document’s `expiresAt`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SigningLinkBodyT = Static<typeof SigningLinkBody>;
