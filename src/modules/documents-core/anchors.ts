import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Type, type Static } from 'typebox';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { WorkerLimitError } from '../../pdf/bounded-worker.ts';
import type { PdfWorkers } from '../../pdf/pdf-workers.ts';
import { findTextInWorker, UnreadableTextError } from '../../pdf/text-search.ts';
import type { Storage } from '../../storage/storage.ts';
import { fieldTypeSpec } from './field-types.ts';
import { fieldExtras, FieldTypeSchema, type FieldInputT } from './fields.schemas.ts';

/*
 * Anchors: a field placed at text found in the document's file instead of at coordinates. Every
 * occurrence of the text (or the one `occurrence` names) gets a field whose top-left corner is
 * `offsetX`/`offsetY` points right of and below the top-left corner of the text's box.
 */

const Points = (description: string) =>
  Type.Number({ minimum: -14400, maximum: 14400, description });
const PointSize = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 14400, description });

const AnchorSchema = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description:
        'Text to find in the file: compared after NFKC normalization, case-sensitively, in logical order (right-to-left text as it is read), every run of white space equal to one space',
    }),
    occurrence: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 500,
        description: 'Only this occurrence (1-based, in page order); default: every occurrence',
      }),
    ),
    offsetX: Type.Optional(Points('Points right of the text box’s left edge (default 0)')),
    offsetY: Type.Optional(Points('Points below the text box’s top edge (default 0)')),
    width: Type.Optional(PointSize('Field width in points (default: the field type’s)')),
    height: Type.Optional(PointSize('Field height in points (default: the field type’s)')),
    ignoreIfMissing: Type.Optional(
      Type.Boolean({
        description:
          'No occurrence answers 201 with an empty list instead of 400 `anchor_not_found`',
      }),
    ),
  },
  { additionalProperties: false, $id: 'Anchor' },
);

/** A field body placed by an anchor instead of `page`/`x`/`y`/`width`/`height`. */
export const AnchoredFieldInput = Type.Object(
  { type: FieldTypeSchema, anchor: AnchorSchema, ...fieldExtras },
  { additionalProperties: false },
);
export type AnchoredFieldInputT = Static<typeof AnchoredFieldInput>;

export const isAnchored = (input: object): input is AnchoredFieldInputT => 'anchor' in input;

/** The API reference's words on anchored bodies, for every route that takes them. */
export const ANCHOR_RULES =
  'Instead of `page`/`x`/`y`/`width`/`height`, a body may give `anchor` (the file must be uploaded, else 409 `missing_file`): ' +
  'every occurrence of `anchor.text` in the file (or the 1-based `anchor.occurrence`) gets a field whose top-left corner is ' +
  '`offsetX`/`offsetY` points right of and below the top-left corner of the text, `width`/`height` points large (default: the type’s size). ' +
  'Text is compared after NFKC normalization, case-sensitively, in logical (reading) order, runs of white space equal. ' +
  'The answer is then the list of fields made (`{data: [Field]}`). No occurrence: 400 `anchor_not_found`, unless `ignoreIfMissing` (201, empty list).';

/**
 * Inline field bodies (a document create's `fields`) with each anchored one replaced by the
 * fields it places on the file at `fileKey`, in body order; the same refusals as
 * placeAnchoredFields, naming `<prefix>.<index>`. Bodies without anchors are returned as they are.
 */
export async function placeInlineFields(
  deps: { storage: Storage; pdf: PdfWorkers },
  fileKey: string | null | undefined,
  inputs: (FieldInputT | AnchoredFieldInputT)[] | undefined,
  prefix: string,
): Promise<FieldInputT[] | undefined> {
  if (!inputs) return undefined;
  const at = inputs.flatMap((input, i) => (isAnchored(input) ? [i] : []));
  if (at.length === 0) return inputs as FieldInputT[];
  const anchored = at.map((i) => inputs[i] as AnchoredFieldInputT);
  const placed = await placeAnchoredFields(
    deps,
    fileKey ?? null,
    anchored,
    (k) => `${prefix}.${at[k]}`,
  );
  const byIndex = new Map(at.map((i, k) => [i, placed[k]]));
  return inputs.flatMap((input, i) => byIndex.get(i) ?? [input as FieldInputT]);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The field bodies each anchored input makes, placed on the file at `fileKey` (one list per
 * input, in its order). 400 `anchor_not_found` naming every anchor with no occurrence (unless it
 * sets `ignoreIfMissing`); 400 `validation_error` when a placed field would leave its page.
 * `pathOf(i)` names input `i` in errors (`body`, `body.fields.2`).
 */
export async function placeAnchoredFields(
  deps: { storage: Storage; pdf: PdfWorkers },
  fileKey: string | null,
  inputs: AnchoredFieldInputT[],
  pathOf: (i: number) => string,
): Promise<FieldInputT[][]> {
  if (inputs.length === 0) return [];
  if (!fileKey)
    throw new AppError(
      'missing_file',
      'Anchors place fields on the uploaded file: upload the file first',
      inputs.map((_, i) => ({ path: `${pathOf(i)}.anchor`, message: 'needs an uploaded file' })),
    );
  const found = await searchFile(
    deps,
    fileKey,
    inputs.map((i) => i.anchor.text),
  );
  const missing: ErrorDetail[] = [];
  const outside: ErrorDetail[] = [];
  const placed = inputs.map((input, i) => {
    const { anchor, ...rest } = input;
    const all = found[i];
    const chosen =
      anchor.occurrence === undefined ? all : all.slice(anchor.occurrence - 1, anchor.occurrence);
    if (chosen.length === 0) {
      if (!anchor.ignoreIfMissing)
        missing.push({
          path: `${pathOf(i)}.anchor.text`,
          message:
            anchor.occurrence !== undefined && all.length > 0
              ? `occurs ${all.length} time(s), not ${anchor.occurrence}`
              : 'does not occur in the file',
        });
      return [];
    }
    const size = fieldTypeSpec(input.type).defaultSize;
    const width = anchor.width ?? size.width;
    const height = anchor.height ?? size.height;
    return chosen.map((at): FieldInputT => {
      const x = at.x + (anchor.offsetX ?? 0);
      const y = at.y + (anchor.offsetY ?? 0);
      if (x < 0 || y < 0 || x + width > at.pageWidth + 0.001 || y + height > at.pageHeight + 0.001)
        outside.push({
          path: `${pathOf(i)}.anchor`,
          message: `places the field outside page ${at.page} (${round(at.pageWidth)} × ${round(at.pageHeight)} points) at ${round(x)}, ${round(y)}`,
        });
      return {
        ...rest,
        page: at.page,
        x: round((Math.max(0, x) / at.pageWidth) * 100),
        y: round((Math.max(0, y) / at.pageHeight) * 100),
        width: round((width / at.pageWidth) * 100),
        height: round((height / at.pageHeight) * 100),
      };
    });
  });
  if (missing.length > 0)
    throw new AppError('anchor_not_found', `${missing[0].path} ${missing[0].message}`, missing);
  if (outside.length > 0)
    throw new AppError('validation_error', `${outside[0].path} ${outside[0].message}`, outside);
  return placed;
}

/** Copies the stored file to a temporary file (pdf.js reads it whole) and searches it. */
async function searchFile(
  { storage, pdf }: { storage: Storage; pdf: PdfWorkers },
  key: string,
  needles: string[],
) {
  const tmp = path.join(os.tmpdir(), `signet-anchor-${randomBytes(8).toString('hex')}.pdf`);
  try {
    await pipeline(await storage.get(key), createWriteStream(tmp));
    return await findTextInWorker(pdf, tmp, needles);
  } catch (err) {
    if (err instanceof UnreadableTextError || err instanceof WorkerLimitError)
      throw new AppError(
        'validation_error',
        `The file's text cannot be searched for anchors: ${err.message}`,
        [{ path: 'body.anchor', message: 'the file’s text cannot be read' }],
      );
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}
