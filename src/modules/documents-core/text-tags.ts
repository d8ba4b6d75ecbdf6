import { Type } from 'typebox';
import { AppError } from '../../http/errors.ts';
import type { FoundTag } from '../../pdf/tag-strip.ts';
import { Nullable } from '../../http/schemas.ts';
import { FIELD_TYPES, fieldTypeSpec, type FieldType } from './field-types.ts';
import { checkField } from './fields.rules.ts';
import type { FieldInputT } from './fields.schemas.ts';

/*
 * Text tags: `{{type:N}}` or `{{type:N;key=value;…}}` in a PDF's text becomes a field of `type`
 * for the N-th signer (1-based; `role=<name>` in templates), placed at the tag's box. The
 * grammar, and the fields and warnings one intake's tags make. Finding and removing the tags in
 * the file is src/pdf/tag-strip.ts.
 */

/** Tags one intake turns into fields; past it, one `too_many_tags` warning. */
const MAX_TAGS = 1000;

export const WarningSchema = Type.Object(
  {
    code: Type.String({
      description:
        '`invalid_tag` (malformed: no field), `unknown_signer` (names a signer or role the document or template does not have), `tag_not_removed` (its text could not be taken out of the file: no field), `too_many_tags` (past 1,000 the rest make no field)',
    }),
    message: Type.String(),
    page: Nullable(Type.Integer({ description: '1-based page of the tag' })),
  },
  { description: 'Something the last intake of the file could not do as asked' },
);
export interface IntakeWarning {
  code: 'invalid_tag' | 'unknown_signer' | 'tag_not_removed' | 'too_many_tags';
  message: string;
  page: number | null;
}

const KEYS = [
  'label',
  'required',
  'readOnly',
  'placeholder',
  'default',
  'options',
  'width',
  'height',
  'role',
] as const;
type Key = (typeof KEYS)[number];

interface ParsedTag {
  type: FieldType;
  /** 1-based signer; null when the tag names a role instead. */
  signer: number | null;
  values: Partial<Record<Key, string>>;
}

const BOOL = /^(true|false)$/;

/** A tag's text read by the grammar, or why it is malformed. */
function parseTag(text: string): ParsedTag | string {
  const body = text.slice(2, -2).trim();
  const colon = body.indexOf(':');
  if (colon < 0) return 'expected {{type:N}} or {{type:N;key=value;…}}';
  const type = body.slice(0, colon).trim();
  if (!(FIELD_TYPES as string[]).includes(type))
    return `unknown field type "${type}" (one of ${FIELD_TYPES.join(', ')})`;
  const parts = body
    .slice(colon + 1)
    .split(';')
    .map((p) => p.trim());
  const values: Partial<Record<Key, string>> = {};
  let signer: number | null = null;
  if (/^\d{1,4}$/.test(parts[0])) signer = Number(parts.shift());
  else if (!parts[0]?.startsWith('role=')) return 'expected the signer number (1, 2, …) after ":"';
  if (signer === 0) return 'signers are numbered from 1';
  for (const part of parts) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!(KEYS as readonly string[]).includes(key))
      return `unknown key "${key}" (one of ${KEYS.join(', ')})`;
    if (eq < 0) return `"${key}" needs a value (${key}=…)`;
    if (key in values) return `"${key}" is given twice`;
    values[key as Key] = part.slice(eq + 1).trim();
  }
  for (const key of ['required', 'readOnly'] as const)
    if (values[key] !== undefined && !BOOL.test(values[key])) return `${key} must be true or false`;
  for (const key of ['width', 'height'] as const) {
    const v = values[key];
    if (v !== undefined && !(/^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= 14400))
      return `${key} must be a number of points above 0`;
  }
  if (values.role !== undefined && values.role === '') return 'role needs a name';
  return { type: type as FieldType, signer, values };
}

/** Who may be named: a document's signer orders, a template's roles; null: not known yet. */
export interface TagAssignees {
  orders: number[] | null;
  /** Template roles by name (a tag's `role=`). */
  roles?: Map<string, number>;
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const clip = (s: string | undefined, max: number) =>
  s === undefined ? undefined : s.slice(0, max);

/** The field bodies an intake's tags make, and its warnings (`count`: tags found in all). */
export function fieldsFromTags(
  tags: FoundTag[],
  count: number,
  who: TagAssignees,
): { fields: FieldInputT[]; warnings: IntakeWarning[] } {
  const fields: FieldInputT[] = [];
  const warnings: IntakeWarning[] = [];
  for (const tag of tags.slice(0, MAX_TAGS)) {
    const field = fieldOfTag(tag, who, warnings);
    if (field) fields.push(field);
  }
  if (count > MAX_TAGS)
    warnings.push({
      code: 'too_many_tags',
      message: `The file has ${count} tags; the ${count - MAX_TAGS} past the first ${MAX_TAGS} were removed and made no field`,
      page: tags[MAX_TAGS]?.page ?? null,
    });
  return { fields, warnings };
}

/** The field one tag makes, or null having added the warning that says why not. */
function fieldOfTag(
  tag: FoundTag,
  who: TagAssignees,
  warnings: IntakeWarning[],
): FieldInputT | null {
  const warn = (code: IntakeWarning['code'], why: string) => {
    warnings.push({ code, message: `${tag.text}: ${why}`, page: tag.page });
    return null;
  };
  if (!tag.removed)
    return warn('tag_not_removed', 'its text could not be taken out of the file; no field');
  const parsed = parseTag(tag.text);
  if (typeof parsed === 'string') return warn('invalid_tag', parsed);
  const { values } = parsed;
  let assignedTo = parsed.signer === null ? 0 : parsed.signer - 1;
  if (values.role !== undefined) {
    const order = who.roles?.get(values.role);
    if (order === undefined) return warn('unknown_signer', `there is no role "${values.role}"`);
    assignedTo = order;
  } else if (who.orders && !who.orders.includes(assignedTo))
    return warn('unknown_signer', `there is no signer ${assignedTo + 1}`);
  const spec = fieldTypeSpec(parsed.type);
  const width = values.width ? Number(values.width) : Math.max(tag.width, spec.minSize.width);
  const height = values.height ? Number(values.height) : Math.max(tag.height, spec.minSize.height);
  const options = values.options?.split('|').map((o) => o.trim().slice(0, 200)) ?? null;
  const field: FieldInputT = {
    type: parsed.type,
    page: tag.page,
    x: round((tag.x / tag.pageWidth) * 100),
    y: round((tag.y / tag.pageHeight) * 100),
    width: round((width / tag.pageWidth) * 100),
    height: round((height / tag.pageHeight) * 100),
    label: clip(values.label, 200),
    required: values.required === undefined ? undefined : values.required === 'true',
    readOnly: values.readOnly === undefined ? undefined : values.readOnly === 'true',
    assignedTo,
    placeholder: clip(values.placeholder, 200),
    defaultValue: clip(values.default, 1000),
    options,
  };
  try {
    if (options && (options.length > 100 || options.some((o) => o === '')))
      throw new AppError('validation_error', 'options must be 1-100 non-empty values');
    checkField({ ...field, options, defaultValue: field.defaultValue ?? null }, '');
  } catch (err) {
    if (err instanceof AppError) return warn('invalid_tag', err.message);
    throw err;
  }
  return field;
}
