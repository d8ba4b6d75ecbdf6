import type { Insertable, Selectable } from 'kysely';
import type {
  Executor,
  SignerRow,
  SignerUpdate,
  SigningOtpsTable,
  SigningTokensTable,
} from '../../db/database.ts';

type SigningTokenRow = Selectable<SigningTokensTable>;
type SigningOtpRow = Selectable<SigningOtpsTable>;

export async function insertSigningTokens(
  db: Executor,
  rows: Insertable<SigningTokensTable>[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto('signing_tokens').values(rows).execute();
}

export async function findSigningToken(
  db: Executor,
  tokenHash: string,
): Promise<SigningTokenRow | undefined> {
  return db
    .selectFrom('signing_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Retires every live signing link of a signer who handed over to someone else: revoked, and
 * marked replaced so each answers 410 `link_replaced` (signing-links.ts).
 */
export async function replaceSignerTokens(
  db: Executor,
  signerId: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('signing_tokens')
    .set({ revoked_at: now, replaced_at: now })
    .where('signer_id', '=', signerId)
    .where('purpose', '=', 'sign')
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes every live link of a signer (e.g. its email address changed). */
export async function revokeSignerTokens(
  db: Executor,
  signerId: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('signing_tokens')
    .set({ revoked_at: now })
    .where('signer_id', '=', signerId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** A signer by id with no organization check: the caller proved access with a signing token. */
export async function findSignerById(
  db: Executor,
  signerId: string,
): Promise<SignerRow | undefined> {
  return db.selectFrom('signers').selectAll().where('id', '=', signerId).executeTakeFirst();
}

export async function updateSignerRow(
  db: Executor,
  signerId: string,
  changes: SignerUpdate,
): Promise<void> {
  await db.updateTable('signers').set(changes).where('id', '=', signerId).execute();
}

export async function findOtp(db: Executor, signerId: string): Promise<SigningOtpRow | undefined> {
  return db
    .selectFrom('signing_otps')
    .selectAll()
    .where('signer_id', '=', signerId)
    .executeTakeFirst();
}

/** Replaces the signer's code (a new code voids the previous one and its failed attempts). */
export async function saveOtp(db: Executor, row: SigningOtpRow): Promise<void> {
  await db.deleteFrom('signing_otps').where('signer_id', '=', row.signer_id).execute();
  await db.insertInto('signing_otps').values(row).execute();
}

/**
 * Takes one attempt against the signer's live code, atomically: returns the code's hash and the
 * attempts now used, or undefined when there is no code, it expired, or its attempts are used up.
 * Counting before comparing means parallel guesses cannot exceed the limit.
 */
export async function takeOtpAttempt(
  db: Executor,
  signerId: string,
  now: string,
  maxAttempts: number,
): Promise<{ code_hash: string; attempts: number } | undefined> {
  return db
    .updateTable('signing_otps')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('signer_id', '=', signerId)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['code_hash', 'attempts'])
    .executeTakeFirst();
}

export async function deleteOtp(db: Executor, signerId: string): Promise<void> {
  await db.deleteFrom('signing_otps').where('signer_id', '=', signerId).execute();
}

export async function findOrgAdmin(
  db: Executor,
  orgId: string,
): Promise<{ name: string; admin_email: string } | undefined> {
  return db
    .selectFrom('organizations')
    .select(['name', 'admin_email'])
    .where('id', '=', orgId)
    .executeTakeFirst();
}
