import type { Kysely } from 'kysely';

/*
 * Codes by SMS (src/modules/signing/signing-otp.ts): a signer's own `otpMethod` (null: the
 * document's), and the failure of the last text message to its phone, which makes the document
 * `action_required` (`sms_undeliverable`) until the sender corrects the phone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').addColumn('otp_method', 'text').execute();
  await db.schema.alterTable('signers').addColumn('sms_failed_at', 'text').execute();
  await db.schema.alterTable('signers').addColumn('sms_error', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').dropColumn('sms_error').execute();
  await db.schema.alterTable('signers').dropColumn('sms_failed_at').execute();
  await db.schema.alterTable('signers').dropColumn('otp_method').execute();
}
