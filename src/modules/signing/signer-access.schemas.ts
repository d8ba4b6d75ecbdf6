import { Type } from 'typebox';
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
