import type { Insertable } from 'kysely';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import type { DocumentRow, SignerRow, SignersTable } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { hashAccessCode } from './access-code-hash.ts';
import type { SignerInputT } from './signers.schemas.ts';
import { otpMethodOf, requireSmsPhone, storedPhone } from './signer-phone.ts';

/**
 * A signer whose links the sender hands out through its own site (`delivery: "embedded"`): no
 * invitation, your-turn or reminder mail is ever sent to them (README "Embedding").
 */
export const isEmbeddedSigner = (signer: Pick<SignerRow, 'delivery'>) =>
  signer.delivery === 'embedded';

/**
 * Where the signing page sends a signer after completing or declining: the document's
 * `redirectUrl`, except for an embedded signer, whom the sender's own page takes care of.
 */
export const redirectOf = (
  doc: Pick<DocumentRow, 'redirect_url'>,
  signer: Pick<SignerRow, 'delivery'>,
): string | null => (isEmbeddedSigner(signer) ? null : (doc.redirect_url ?? null));

/** Signers (all roles) a document may have. */
export const MAX_SIGNERS = 50;

/** Fields a signer may still change once the document is out for signature: typos in who receives it. */
export const CORRECTABLE_IN_FLIGHT: readonly string[] = ['name', 'email', 'phone', 'accessCode'];

/**
 * Rows for new signers of a document. `order` defaults to the next free position; an order
 * already taken (by an existing signer or another new one) is a validation error.
 */
export function buildSignerRows(
  documentId: string,
  inputs: SignerInputT[],
  existing: Pick<SignerRow, 'position'>[],
  now: string,
  pathPrefix = '',
  /** The server secret that keys access-code hashes; needed when an input has an `accessCode`. */
  secret?: Buffer,
  /** The document's `otp_method`: a signer that inherits `sms` needs a phone. */
  docOtpMethod: string | null = null,
): Insertable<SignersTable>[] {
  const taken = new Set(existing.map((s) => s.position));
  let next = existing.reduce((max, s) => Math.max(max, s.position + 1), 0);
  return inputs.map((input, index) => {
    const position = input.order ?? next;
    if (taken.has(position)) {
      throw new AppError('validation_error', `Signer order ${position} is already taken`, [
        {
          path: pathPrefix ? `${pathPrefix}.${index}.order` : 'body.order',
          message: `${position} is already taken by another signer`,
        },
      ]);
    }
    taken.add(position);
    next = Math.max(next, position + 1);
    const at = (field: string) =>
      pathPrefix ? `${pathPrefix}.${index}.${field}` : `body.${field}`;
    const otpMethod = input.otpMethod ?? null;
    requireSmsPhone(
      otpMethodOf({ otp_method: docOtpMethod }, { otp_method: otpMethod }),
      input.phone,
      at('phone'),
    );
    const id = newId('sgn');
    const code = input.accessCode ?? null;
    if (code !== null && !secret)
      throw new Error('buildSignerRows: an access code needs the secret');
    return {
      id,
      document_id: documentId,
      name: input.name,
      email: input.email.toLowerCase(),
      phone: storedPhone(input.phone),
      otp_method: otpMethod,
      locale: checkOptionalLocale(input.locale, at('locale')) ?? null,
      role: input.role ?? 'signer',
      position,
      signing_group: input.group ?? null,
      status: 'pending',
      signed_at: null,
      access_code_hash: code === null ? null : hashAccessCode(secret as Buffer, id, code),
      delivery: input.delivery === 'embedded' ? 'embedded' : null,
      created_at: now,
      updated_at: now,
    };
  });
}
