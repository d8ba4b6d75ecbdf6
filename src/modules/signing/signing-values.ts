import type { FieldRow } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import {
  IMAGE_LIMITS,
  ImageRefused,
  normalizeSignaturePng,
  overBudget,
  pngDimensions,
} from '../../images/image-limits.ts';
import { SIGNING_LIMITS, type CompleteInput, type SignatureInputT } from './signing.schemas.ts';

/*
 * What a signer may put in each field type. Values are stored as text on the field:
 * checkbox "true"/"false", number in JavaScript's canonical form, date as given (ISO 8601),
 * signature and initials as the typed text or the PNG data URL (the PDF stamper reads both).
 */

const SIGNATURE_TYPES = ['signature', 'initials'];
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// The same shape as the `email` format the API validates signer addresses with.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

type Raw = string | number | boolean;
type Check = { ok: true; value: string } | { ok: false; message: string };

const bad = (message: string): Check => ({ ok: false, message });
const good = (value: string): Check => ({ ok: true, value });

/** A typed signature (1-200 characters, not blank) or a drawn one (a PNG data URL of at most 1 MB). */
export function checkSignature(kind: SignatureInputT['kind'], value: string): Check {
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

function checkDate(raw: Raw): Check {
  if (typeof raw !== 'string') return bad('must be an ISO 8601 date such as 2026-11-21');
  const m = ISO_DATE.exec(raw.trim());
  if (!m) return bad('must be an ISO 8601 date such as 2026-11-21');
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (
    probe.getUTCFullYear() !== year ||
    probe.getUTCMonth() !== month - 1 ||
    probe.getUTCDate() !== day
  )
    return bad('is not a real calendar date');
  if (m[4] && Number.isNaN(Date.parse(raw.trim()))) return bad('is not a valid date and time');
  return good(raw.trim());
}

export function checkValue(field: Pick<FieldRow, 'type' | 'options'>, raw: Raw): Check {
  const options = field.options ? (JSON.parse(field.options) as string[]) : [];
  switch (field.type) {
    case 'signature':
    case 'initials':
      if (typeof raw !== 'string') return bad('must be a typed signature or a PNG data URL');
      return checkSignature(raw.startsWith('data:') ? 'drawn' : 'typed', raw);
    case 'checkbox':
      if (raw === true || raw === 'true') return good('true');
      if (raw === false || raw === 'false') return good('false');
      return bad('must be true or false');
    case 'number': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && NUMERIC.test(raw.trim())
            ? Number(raw.trim())
            : NaN;
      if (!Number.isFinite(n)) return bad('must be a number');
      return good(String(n));
    }
    case 'date':
      return checkDate(raw);
    case 'email':
      if (typeof raw !== 'string' || raw.length > 254 || !EMAIL.test(raw.trim()))
        return bad('must be an email address');
      return good(raw.trim());
    case 'dropdown':
    case 'radio':
      if (typeof raw !== 'string' || !options.includes(raw))
        return bad(`must be one of ${options.join(', ')}`);
      return good(raw);
    case 'name':
      if (typeof raw !== 'string') return bad('must be text');
      if (raw.trim().length > 200) return bad('must be at most 200 characters');
      return good(raw.trim());
    default:
      if (typeof raw !== 'string') return bad('must be text');
      if (raw.length > SIGNING_LIMITS.valueMaxChars)
        return bad(`must be at most ${SIGNING_LIMITS.valueMaxChars} characters`);
      return good(raw);
  }
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
      if (SIGNATURE_TYPES.includes(field.type) && signature) {
        if (signature.ok) result.set(field.id, signature.value);
        continue;
      }
      if (field.required === 1) {
        problems.push({
          path: SIGNATURE_TYPES.includes(field.type) ? 'body.signature' : path,
          message: `is required (${field.label || field.type})`,
        });
      }
      result.set(field.id, null);
      continue;
    }
    if (field.type === 'file') {
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
    else if (field.type === 'checkbox' && field.required === 1 && checked.value !== 'true')
      problems.push({ path, message: 'must be checked' });
    else result.set(field.id, checked.value);
  }

  if (problems.length > 0) {
    const first = problems[0];
    throw new AppError('validation_error', `${first.path} ${first.message}`, problems);
  }
  return result;
}
