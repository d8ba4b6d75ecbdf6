import { Type } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';

/* Parts of a document's detail (documents.schemas.ts): its attachments and why it waits on the sender. */

export const Attachment = Type.Object(
  {
    id: Id('att'),
    name: Type.String(),
    contentType: Type.String(),
    fileSize: Type.Integer({ description: 'Bytes' }),
    sha256: Type.String({
      description:
        'SHA-256 hex of the bytes as stored (download them with `GET /api/v1/documents/{id}/attachments/{attachmentId}`)',
    }),
    kind: StringEnum(['signer_upload', 'identity_evidence'] as const, {
      description: '`signer_upload`: a file field; `identity_evidence`: an ID photo (`requireKyc`)',
    }),
    signerId: Nullable(Type.String()),
    fieldId: Nullable(Type.String({ description: 'The `file` field it fills (signer uploads)' })),
    createdAt: Timestamp,
  },
  { description: 'A file attached to the document by a signer' },
);

export const ActionRequired = Nullable(
  Type.Object(
    {
      reason: StringEnum([
        'identity_review',
        'invitation_undeliverable',
        'sms_undeliverable',
        'sealing_failed',
      ] as const),
      signerId: Type.Optional(
        Type.String({
          description:
            'The signer concerned (identity_review, invitation_undeliverable, sms_undeliverable)',
        }),
      ),
      message: Type.String({ description: 'What happened and what the sender can do' }),
    },
    { additionalProperties: false },
  ),
  {
    description:
      'Why the document is `action_required` (null in every other status): `identity_review` (a signer’s identity evidence awaits ' +
      '`POST …/signers/{signerId}/verification`), `invitation_undeliverable` (correct the signer’s email), `sms_undeliverable` (a code could not be texted: correct the signer’s `phone`), `sealing_failed` ' +
      '(every signer signed but the signed PDF could not be produced; `POST …/reseal` tries again).',
  },
);
