import type { FieldRow } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import {
  IMAGE_LIMITS,
  ImageRefused,
  normalizeSignaturePng,
  overBudget,
  pngDimensions,
} from '../../images/image-limits.ts';
import { fieldTypeSpec, type ValueCheck } from '../documents-core/field-types.ts';
import { SIGNING_LIMITS, type CompleteInput, type SignatureInputT } from './signing.schemas.ts';

/*
 * What a signer may put in each field: each type's rule is in documents-core/field-types.ts. Values are
 * stored as text on the field: checkbox "true"/"false", number in JavaScript's canonical form,
 * date as given (ISO 8601), signature and initials as the typed text or the PNG data URL (the PDF
 * stamper reads both).
 */

const signedWithSignature = (type: string) => fieldTypeSpec(type).fill === 'signature';
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type Raw = string | number | boolean;
type Check = ValueCheck;

const bad = (message: string): Check => ({ ok: false, message });
const good = (value: string): Check => ({ ok: true, value });

/** A typed signature (1-200 characters, not blank) or a drawn one (a PNG data URL of at most 1 MB). */
function checkSignature(kind: SignatureInputT['kind'], value: string): Check {
  if (kind === 'typed') {
    const text = value.trim();
    if (text.length === 0) return bad('must not be blank');
    if (text.length > SIGNING_LIMITS.typedSignatureMaxChars)
      return bad(`must be at most ${SIGNING_LIMITS.typedSignatureMaxChars} characters when typed`);
    return good(text);
  }
  if (value.length > SIGNING_LIMITS.drawnSignatureMaxChars)
    return bad('must be at most 1 MB when drawn');
  const match = PNG_DATA_URL.exec(value);
  if (!match) return bad('must be a data:image/png;base64,… URL when drawn');
  const bytes = Buffer.from(match[1], 'base64');
  if (
    bytes.length < PNG_MAGIC.length + 25 ||
    !bytes.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC)
  )
    return bad('is not a PNG image');
  // The header says how many pixels decoding would cost: refused before anything decodes it.
  const dims = pngDimensions(bytes);
  if (!dims) return bad('is not a PNG image');
  const over = overBudget(dims, IMAGE_LIMITS.signaturePixels, 'the drawn signature');
  if (over) return bad(`is too large: ${over}`);
  return good(value);
}

/**
 * Replaces each drawn signature among `values` (checked by `resolveValues`) by the PNG Signet
 * makes of it (`normalizeSignaturePng`); the same image is normalized once. 400
 * `validation_error` naming the field when one cannot be decoded.
 */
export async function normalizeDrawnValues(
  values: Map<string, string | null>,
): Promise<Map<string, string | null>> {
  const done = new Map<string, Promise<string>>();
  const out = new Map<string, string | null>();
  for (const [fieldId, value] of values) {
    const match = value === null ? null : PNG_DATA_URL.exec(value);
    if (!match) {
      out.set(fieldId, value);
      continue;
    }
    let normalized = done.get(value!);
    if (!normalized) {
      normalized = normalizeSignaturePng(Buffer.from(match[1], 'base64')).then(
        (png) => `data:image/png;base64,${png.toString('base64')}`,
      );
      done.set(value!, normalized);
    }
    try {
      out.set(fieldId, await normalized);
    } catch (err) {
      if (!(err instanceof ImageRefused)) throw err;
      throw new AppError('validation_error', `body.values.${fieldId} ${err.message}`, [
        { path: `body.values.${fieldId}`, message: err.message },
      ]);
    }
  }
  return out;
}

/** A value of `field`'s type, checked by the type's rule (field-types.ts) and returned as stored. */
export function checkValue(field: Pick<FieldRow, 'type' | 'options'>, raw: Raw): Check {
  const spec = fieldTypeSpec(field.type);
  if (spec.fill === 'signature') {
    if (typeof raw !== 'string') return bad('must be a typed signature or a PNG data URL');
    return checkSignature(raw.startsWith('data:') ? 'drawn' : 'typed', raw);
  }
  return spec.validate(raw, field.options ? (JSON.parse(field.options) as string[]) : []);
}

const isEmpty = (raw: Raw | undefined) =>
  raw === undefined || (typeof raw === 'string' && raw.trim() === '');

/**
 * Checks the submitted values against the signer's fields and returns the value to store for
 * each of them (null when left empty). Every problem is reported at once as a 400
 * `validation_error` whose details name `body.values.<fieldId>` (or `body.signature`).
 */
export function resolveValues(
  fields: FieldRow[],
  input: Pick<CompleteInput, 'values' | 'signature'>,
  /** The signer's current upload per `file` field (field id → attachment id). */
  uploads: ReadonlyMap<string, { id: string }> = new Map(),
): Map<string, string | null> {
  const problems: ErrorDetail[] = [];
  const values = input.values ?? {};
  const mine = new Map(fields.map((f) => [f.id, f]));
  for (const id of Object.keys(values)) {
    if (!mine.has(id))
      problems.push({ path: `body.values.${id}`, message: 'is not one of your fields' });
  }

  let signature: Check | undefined;
  if (input.signature) {
    signature = checkSignature(input.signature.kind, input.signature.value);
    if (!signature.ok) problems.push({ path: 'body.signature.value', message: signature.message });
  }

  const result = new Map<string, string | null>();
  for (const field of fields) {
    const path = `body.values.${field.id}`;
    const raw = values[field.id];
    if (field.read_only === 1) {
      if (raw !== undefined) problems.push({ path, message: 'is read-only' });
      result.set(field.id, field.default_value);
      continue;
    }
    if (isEmpty(raw)) {
      if (signedWithSignature(field.type) && signature) {
        if (signature.ok) result.set(field.id, signature.value);
        continue;
      }
      if (field.required === 1) {
        problems.push({
          path: signedWithSignature(field.type) ? 'body.signature' : path,
          message: `is required (${field.label || field.type})`,
        });
      }
      result.set(field.id, null);
      continue;
    }
    if (fieldTypeSpec(field.type).fill === 'upload') {
      if (raw !== uploads.get(field.id)?.id)
        problems.push({
          path,
          message:
            'must be the attachmentId answered by PUT …/fields/{fieldId}/file for this field',
        });
      else result.set(field.id, raw);
      continue;
    }
    const checked = checkValue(field, raw!);
    if (!checked.ok) problems.push({ path, message: checked.message });
    else if (
      fieldTypeSpec(field.type).client.submit === 'boolean' &&
      field.required === 1 &&
      checked.value !== 'true'
    )
      problems.push({ path, message: 'must be checked' });
    else result.set(field.id, checked.value);
  }

  if (problems.length > 0) {
    const first = problems[0];
    throw new AppError('validation_error', `${first.path} ${first.message}`, problems);
  }
  return result;
}
