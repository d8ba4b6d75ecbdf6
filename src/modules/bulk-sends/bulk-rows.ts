import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { TemplateFieldRow, TemplateRoleRow } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { LOCALE_CODES, matchLocale } from '../../i18n/locales.ts';
import { fieldTypeSpec } from '../documents-core/field-types.ts';
import { checkValue } from '../signing/signing-values.ts';
import { e164 } from '../documents-core/signer-phone.ts';
import { BulkRow, type BulkRowT } from './bulk-sends.schemas.ts';

/** A row as stored for the job: signers placed at their role's order, prefill values by template field id. */
export interface StoredRow {
  name: string;
  /** The document's locale (rows stored before locales have none). */
  locale?: string | null;
  signers: {
    order: number;
    name: string;
    email: string;
    phone: string | null;
    locale?: string | null;
  }[];
  values: Record<string, string>;
}

/** Most problems listed in one error body. */

const ajv = new Ajv({ allErrors: true, strict: false });
// A CommonJS module: under NodeNext its default import is module.exports, whose .default is the plugin.
ajvFormats.default(ajv);
const checkRowShape = ajv.compile(BulkRow);

/** How a row's problems are named: `rows[17].signers[0].email` (JSON) or `row 18` (CSV). */
export type RowNaming = 'json' | 'csv';

/** `instancePath` (`/signers/0/email`) in the JSON body's notation (`.signers[0].email`). */
const jsonPath = (pointer: string) =>
  pointer.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\/([^/[]+)/g, '.$1');

/** The template's roles a row must fill: those without a fixed signer (one implicit role when it has none). */
export function openRoles(roles: TemplateRoleRow[]): { name: string; order: number }[] {
  if (roles.length === 0) return [{ name: 'Signer', order: 0 }];
  return roles
    .filter((r) => r.signer_email === null)
    .map((r) => ({ name: r.name, order: r.position }));
}

/**
 * Checks every row against the template (roles, field labels, value types) and returns them as
 * stored; any problem in any row is a 400 `validation_error` listing every bad row, so nothing
 * is created from a request with one bad row.
 */
export function validateRows(
  rows: BulkRowT[],
  roles: TemplateRoleRow[],
  fields: TemplateFieldRow[],
  naming: RowNaming,
  defaultName: string,
  /** The bulk send's `otpMethod` is `sms`: every row's signers need a phone in E.164. */
  smsCodes = false,
): StoredRow[] {
  const open = openRoles(roles);
  const openByKey = new Map(open.map((r) => [r.name.trim().toLowerCase(), r]));
  const fixedKeys = new Set(
    roles.filter((r) => r.signer_email !== null).map((r) => r.name.trim().toLowerCase()),
  );
  const fieldById = new Map(fields.map((f) => [f.id, f]));
  const fieldByLabel = new Map<string, TemplateFieldRow[]>();
  for (const f of fields) {
    const key = f.label.trim().toLowerCase();
    if (key) fieldByLabel.set(key, [...(fieldByLabel.get(key) ?? []), f]);
  }
  const problems: ErrorDetail[] = [];
  const out: StoredRow[] = [];
  rows.forEach((row, i) => {
    const at = (sub: string, message: string) =>
      problems.push(
        naming === 'json'
          ? { path: `rows[${i}]${sub}`, message }
          : {
              path: `row ${i + 1}`,
              message: `${sub ? `${sub.replace(/^\./, '')} ` : ''}${message}`,
            },
      );
    if (naming === 'csv' && !checkRowShape(row)) {
      for (const e of checkRowShape.errors ?? [])
        at(jsonPath(e.instancePath), e.message ?? 'is invalid');
      return;
    }
    const localeAt = (tag: string | undefined, sub: string) => {
      if (tag === undefined) return null;
      const locale = matchLocale(tag);
      if (!locale) at(sub, `must be a supported locale: ${LOCALE_CODES.join(', ')}`);
      return locale ?? null;
    };
    const stored: StoredRow = {
      name: '',
      locale: localeAt(row.locale, '.locale'),
      signers: [],
      values: {},
    };
    const filled = new Set<number>();
    row.signers.forEach((s, j) => {
      const key = s.role.trim().toLowerCase();
      const role = openByKey.get(key);
      if (!role) {
        at(
          `.signers[${j}].role`,
          fixedKeys.has(key)
            ? `"${s.role}" has a fixed signer in the template`
            : `"${s.role}" is not a role of the template`,
        );
        return;
      }
      if (filled.has(role.order)) {
        at(`.signers[${j}].role`, `"${s.role}" is given twice`);
        return;
      }
      filled.add(role.order);
      if (smsCodes && e164(s.phone) === null)
        at(`.signers[${j}].phone`, 'needs a valid phone in international form (otpMethod is sms)');
      stored.signers.push({
        order: role.order,
        name: s.name.trim(),
        email: s.email.toLowerCase(),
        phone: s.phone ?? null,
        locale: localeAt(s.locale, `.signers[${j}].locale`),
      });
    });
    for (const role of open)
      if (!filled.has(role.order)) at('.signers', `needs a signer for role "${role.name}"`);
    for (const [key, raw] of Object.entries(row.values ?? {})) {
      const byLabel = fieldByLabel.get(key.trim().toLowerCase());
      const field = fieldById.get(key) ?? (byLabel?.length === 1 ? byLabel[0] : undefined);
      const path = naming === 'json' ? `.values[${JSON.stringify(key)}]` : `"${key}"`;
      if (!field) {
        at(
          path,
          byLabel
            ? 'names several fields; use the field id'
            : 'is not a field label or id of the template',
        );
        continue;
      }
      if (!fieldTypeSpec(field.type).prefill) {
        at(path, `is a ${field.type} field, which only the signer can fill`);
        continue;
      }
      const checked = checkValue(field, raw);
      if (!checked.ok) at(path, checked.message);
      else stored.values[field.id] = checked.value;
    }
    const first = stored.signers.sort((a, b) => a.order - b.order)[0];
    stored.name = (row.name?.trim() || `${defaultName}${first ? ` - ${first.name}` : ''}`).slice(
      0,
      200,
    );
    out.push(stored);
  });
  if (problems.length > 0) {
    const first = problems[0];
    const rowsWithProblems = new Set(
      problems.map((p) => p.path.replace(/^(rows\[\d+\]|row \d+).*$/, '$1')),
    ).size;
    // The error handler lists the first MAX_DETAILS and says how many more there were.
    throw new AppError(
      'validation_error',
      `${rowsWithProblems} row(s) are invalid; nothing was created. First: ${first.path} ${first.message}`,
      problems,
    );
  }
  return out;
}
