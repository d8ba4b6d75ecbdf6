import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';

/* The settings a document shares with the templates and bulk sends that make documents. */

export const SigningType = StringEnum(['sequential', 'parallel'] as const);
export const SEND_COMPLETED_COPY_TEXT =
  'Whether signers and cc recipients get the completed copy by mail once everyone signed (default true)';
export const REDIRECT_URL_TEXT =
  'Where a signer who is not embedded is sent after completing or declining (https only in production; at most 2000 characters); null: nowhere, the page says it is done';

export const OtpMethod = Nullable(StringEnum(['email', 'sms'] as const), {
  description:
    'A one-time code the signer must give to sign: `email` (to its email address), `sms` (to its `phone`), or null (none)',
});
export const ReminderFrequency = Nullable(StringEnum(['daily', 'every_3_days', 'weekly'] as const));

/** One wording of what `allowReassign` does, for documents, templates and bulk sends. */
export const AllowReassignText =
  'Whether the signer whose turn it is may hand over to someone else (`POST /api/v1/signing/{token}/reassign`); default false, or the template’s';

/** A document's name, and its message to signers. */
export const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: '1-200 characters, not blank',
});
export const Message = Type.String({ maxLength: 5000 });
