import type { Insertable } from 'kysely';
import type { FieldsTable } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { checkPage, MAX_FIELDS } from './fields.rules.ts';
import type { FieldInputT } from './fields.schemas.ts';

/*
 * Replacing the whole set of a document's or template's fields at once (the builder's save): the
 * fields named by `id` are kept and edited, the others are removed, those without `id` are added.
 * Every field is checked by the rules of the fields API (`checkField` through the row builder,
 * `checkPage`), with paths `body.fields.<i>`.
 */

/** A field of the new set: an existing one (`id`) as it should be, or a new one. */
export type ReplacingFieldT = FieldInputT & { id?: string };

/** The columns a replacement may change, with the API name each one has. */
const EDITABLE = {
  type: 'type',
  label: 'label',
  page: 'page',
  x: 'x',
  y: 'y',
  width: 'width',
  height: 'height',
  required: 'required',
  read_only: 'readOnly',
  assigned_to: 'assignedTo',
  placeholder: 'placeholder',
  default_value: 'defaultValue',
  options: 'options',
} as const;
type Editable = keyof typeof EDITABLE;
type EditableColumns = Pick<Insertable<FieldsTable>, Editable>;

interface Plan<Existing, Row> {
  insert: Row[];
  update: { before: Existing; changes: Partial<EditableColumns>; changed: string[] }[];
  remove: Existing[];
}

/**
 * What to insert, update and remove so that the fields become `inputs`. `build` makes the rows of
 * new fields (checking each one as the fields API does); unknown or repeated ids are 400
 * `validation_error`, more than MAX_FIELDS 409 `limit_reached`, a page beyond the file's 400.
 */
export function planFieldReplacement<
  Existing extends EditableColumns & { id: string },
  Row extends EditableColumns,
>(
  existing: readonly Existing[],
  inputs: readonly ReplacingFieldT[],
  pageCount: number | null,
  build: (inputs: FieldInputT[]) => Row[],
  what: string,
): Plan<Existing, Row> {
  if (inputs.length > MAX_FIELDS)
    throw new AppError('limit_reached', `${what} has at most ${MAX_FIELDS} fields`);
  const byId = new Map(existing.map((f) => [f.id, f]));
  const seen = new Set<string>();
  const problems: ErrorDetail[] = [];
  inputs.forEach((input, i) => {
    if (input.id === undefined) return;
    if (!byId.has(input.id))
      problems.push({ path: `body.fields.${i}.id`, message: 'is not a field of it' });
    else if (seen.has(input.id))
      problems.push({ path: `body.fields.${i}.id`, message: 'names a field twice' });
    seen.add(input.id);
  });
  if (problems.length > 0)
    throw new AppError('validation_error', `${problems[0].path} ${problems[0].message}`, problems);
  for (const [i, input] of inputs.entries())
    checkPage(input.page, pageCount, `body.fields.${i}.page`);
  // One builder call for all, so each problem is reported at its own index.
  const rows = build(inputs.map(({ id: _id, ...input }) => input));
  const plan: Plan<Existing, Row> = { insert: [], update: [], remove: [] };
  rows.forEach((row, i) => {
    const before = inputs[i].id === undefined ? undefined : byId.get(inputs[i].id as string);
    if (!before) {
      plan.insert.push(row);
      return;
    }
    const changes: Partial<EditableColumns> = {};
    const changed: string[] = [];
    for (const column of Object.keys(EDITABLE) as Editable[]) {
      if (row[column] === before[column]) continue;
      (changes as Record<string, unknown>)[column] = row[column];
      changed.push(EDITABLE[column]);
    }
    if (changed.length > 0) plan.update.push({ before, changes, changed: changed.sort() });
  });
  plan.remove = existing.filter((f) => !seen.has(f.id));
  return plan;
}
