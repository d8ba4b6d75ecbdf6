/*
 * Everything Signet knows about one field type, in one place. Field schemas, field rules,
 * the values a signer may submit, bulk-send prefill, PDF stamping, anchors and the signing and
 * campaign pages all read this table. Adding a type is one entry here (plus, when none of the
 * existing `draw` kinds fits, one drawing in src/pdf/stamp.ts and one control in
 * src/web/client/fields.js). See docs/field-types.md.
 */

/** Longest text value a signer may submit in one field. */
export const VALUE_MAX_CHARS = 10000;
/** Longest value of a `name` field. */
const NAME_MAX_CHARS = 200;
/** Longest value of an `email` field (RFC 5321 path limit). */
const EMAIL_MAX_CHARS = 254;

type Raw = string | number | boolean;
export type ValueCheck = { ok: true; value: string } | { ok: false; message: string };
const bad = (message: string): ValueCheck => ({ ok: false, message });
const good = (value: string): ValueCheck => ({ ok: true, value });

// The same shape as the `email` format the API validates signer addresses with.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Width and height in PDF points (1/72 inch). */
interface PointSize {
  width: number;
  height: number;
}

/**
 * How the signer fills a field: with the signature adopted on the page (`signature`), with an
 * uploaded file (`upload`, the value is its attachment id), or with a typed or chosen value
 * checked by `validate`.
 */
type FillKind = 'signature' | 'upload' | 'value';

/**
 * How a value is drawn into the sealed PDF: `mark` is a signature (a drawn PNG, or typed text in
 * the signature face), `tick` a check mark when the value is "true", `text` the value in Noto Sans.
 */
type DrawKind = 'mark' | 'tick' | 'text';

/**
 * What the signing and campaign pages need to render and submit a field of this type (sent to
 * them as data): `control` picks the input they build, `submit` how its value goes into the
 * `complete` body (`signature`: through `body.signature`, not `values`; `mark`: the adopted mark's
 * `value`; `boolean`: true or false, always sent; `text`: the value when filled).
 */
interface ClientSpec {
  control:
    | 'signature'
    | 'initials'
    | 'file'
    | 'checkbox'
    | 'dropdown'
    | 'radio'
    | 'text'
    | 'name'
    | 'email'
    | 'date'
    | 'number';
  submit: 'signature' | 'mark' | 'boolean' | 'text';
}

interface FieldTypeSpec {
  /** `required`: 1-100 options (dropdown, radio); `forbidden`: `options` must be null. */
  options: 'required' | 'forbidden';
  /** Size a field gets when placed by an anchor or a tag that does not give one. */
  defaultSize: PointSize;
  /** Smallest box in which a value of this type is still legible. */
  minSize: PointSize;
  /** Whether a sender may prefill it (`defaultValue`, bulk-send `values`). */
  prefill: boolean;
  fill: FillKind;
  /**
   * Checks a submitted (or prefilled) value and returns it as stored. Types filled with the
   * signature or an upload have their own checks (signing-values.ts, signer-uploads.ts).
   */
  validate(raw: Raw, options: readonly string[]): ValueCheck;
  draw: DrawKind;
  client: ClientSpec;
}

function text(raw: Raw): ValueCheck {
  if (typeof raw !== 'string') return bad('must be text');
  if (raw.length > VALUE_MAX_CHARS) return bad(`must be at most ${VALUE_MAX_CHARS} characters`);
  return good(raw);
}

function date(raw: Raw): ValueCheck {
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

function choice(raw: Raw, options: readonly string[]): ValueCheck {
  if (typeof raw !== 'string' || !options.includes(raw))
    return bad(`must be one of ${options.join(', ')}`);
  return good(raw);
}

/** Signature-like values are checked against the adopted signature's rules, not here. */
const signatureValue = (raw: Raw): ValueCheck =>
  typeof raw === 'string' ? good(raw) : bad('must be a typed signature or a PNG data URL');

const size = (width: number, height: number): PointSize => ({ width, height });

export const FIELD_TYPE_REGISTRY = {
  signature: {
    options: 'forbidden',
    defaultSize: size(180, 48),
    minSize: size(60, 20),
    prefill: false,
    fill: 'signature',
    validate: signatureValue,
    draw: 'mark',
    client: { control: 'signature', submit: 'signature' },
  },
  initials: {
    options: 'forbidden',
    defaultSize: size(60, 36),
    minSize: size(24, 16),
    prefill: false,
    fill: 'signature',
    validate: signatureValue,
    draw: 'mark',
    client: { control: 'initials', submit: 'mark' },
  },
  name: {
    options: 'forbidden',
    defaultSize: size(160, 20),
    minSize: size(40, 12),
    prefill: true,
    fill: 'value',
    validate(raw) {
      if (typeof raw !== 'string') return bad('must be text');
      if (raw.trim().length > NAME_MAX_CHARS)
        return bad(`must be at most ${NAME_MAX_CHARS} characters`);
      return good(raw.trim());
    },
    draw: 'text',
    client: { control: 'name', submit: 'text' },
  },
  email: {
    options: 'forbidden',
    defaultSize: size(180, 20),
    minSize: size(40, 12),
    prefill: true,
    fill: 'value',
    validate(raw) {
      if (typeof raw !== 'string' || raw.length > EMAIL_MAX_CHARS || !EMAIL.test(raw.trim()))
        return bad('must be an email address');
      return good(raw.trim());
    },
    draw: 'text',
    client: { control: 'email', submit: 'text' },
  },
  date: {
    options: 'forbidden',
    defaultSize: size(100, 20),
    minSize: size(40, 12),
    prefill: true,
    fill: 'value',
    validate: date,
    draw: 'text',
    client: { control: 'date', submit: 'text' },
  },
  text: {
    options: 'forbidden',
    defaultSize: size(160, 20),
    minSize: size(20, 12),
    prefill: true,
    fill: 'value',
    validate: text,
    draw: 'text',
    client: { control: 'text', submit: 'text' },
  },
  number: {
    options: 'forbidden',
    defaultSize: size(80, 20),
    minSize: size(20, 12),
    prefill: true,
    fill: 'value',
    validate(raw) {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && NUMERIC.test(raw.trim())
            ? Number(raw.trim())
            : Number.NaN;
      if (!Number.isFinite(n)) return bad('must be a number');
      return good(String(n));
    },
    draw: 'text',
    client: { control: 'number', submit: 'text' },
  },
  checkbox: {
    options: 'forbidden',
    defaultSize: size(16, 16),
    minSize: size(10, 10),
    prefill: true,
    fill: 'value',
    validate(raw) {
      if (raw === true || raw === 'true') return good('true');
      if (raw === false || raw === 'false') return good('false');
      return bad('must be true or false');
    },
    draw: 'tick',
    client: { control: 'checkbox', submit: 'boolean' },
  },
  dropdown: {
    options: 'required',
    defaultSize: size(140, 20),
    minSize: size(40, 14),
    prefill: true,
    fill: 'value',
    validate: choice,
    draw: 'text',
    client: { control: 'dropdown', submit: 'text' },
  },
  radio: {
    options: 'required',
    defaultSize: size(140, 60),
    minSize: size(40, 14),
    prefill: true,
    fill: 'value',
    validate: choice,
    draw: 'text',
    client: { control: 'radio', submit: 'text' },
  },
  file: {
    options: 'forbidden',
    defaultSize: size(160, 24),
    minSize: size(60, 16),
    prefill: false,
    fill: 'upload',
    // The value is an attachment id, checked against the signer's uploads when signing.
    validate: text,
    draw: 'text',
    client: { control: 'file', submit: 'text' },
  },
} as const satisfies Record<string, FieldTypeSpec>;

export type FieldType = keyof typeof FIELD_TYPE_REGISTRY;

/** Every field type, in the registry's order (the order of the API's enum and the builder's palette). */
export const FIELD_TYPES = Object.keys(FIELD_TYPE_REGISTRY) as [FieldType, ...FieldType[]];

const isFieldType = (type: string): type is FieldType => Object.hasOwn(FIELD_TYPE_REGISTRY, type);

/** The entry of a stored type (a type no longer in the registry is treated as plain text). */
export function fieldTypeSpec(type: string): FieldTypeSpec {
  return isFieldType(type) ? FIELD_TYPE_REGISTRY[type] : FIELD_TYPE_REGISTRY.text;
}

/** What the pages need of every type, as the JSON they are served (`data-field-types`). */
export function fieldTypesForClient(): Record<string, ClientSpec> {
  return Object.fromEntries(FIELD_TYPES.map((t) => [t, FIELD_TYPE_REGISTRY[t].client]));
}

/**
 * What the builder page needs of every type, in palette order: whether it takes options, the
 * size a new field gets and the smallest it may be made (points).
 */
export function fieldTypesForBuilder() {
  return FIELD_TYPES.map((type) => {
    const { options, defaultSize, minSize } = FIELD_TYPE_REGISTRY[type];
    return { type, options, defaultSize, minSize };
  });
}
