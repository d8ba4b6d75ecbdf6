import { type Static, Type } from 'typebox';
import { SIGNER_STATUSES } from '../../db/database.ts';
import { Id, StringEnum } from '../../http/schemas.ts';
import { Email, Phone } from '../documents-core/signers.schemas.ts';
import { SIGNING_LIMITS } from './signing.schemas.ts';

export const ReassignBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: 'The name of the person who takes over (1-200 characters, not blank)',
    }),
    email: Email,
    reason: Type.String({
      minLength: 1,
      maxLength: SIGNING_LIMITS.declineReasonMaxChars,
      pattern: '\\S',
      description: 'Why (1-1000 characters, as a decline reason); the sender reads it',
    }),
    phone: Type.Optional(Phone),
  },
  { additionalProperties: false },
);
export type ReassignInput = Static<typeof ReassignBody>;

export const ReassignResult = Type.Object({
  documentId: Id('doc'),
  signerId: Id('sgn'),
  name: Type.String(),
  email: Type.String({ description: 'Where the invitation went' }),
  status: StringEnum(SIGNER_STATUSES),
});
export type ReassignResultT = Static<typeof ReassignResult>;
