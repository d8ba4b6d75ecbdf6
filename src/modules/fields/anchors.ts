import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Type, type Static } from 'typebox';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { WorkerLimitError } from '../../pdf/bounded-worker.ts';
import { findTextInWorker, UnreadableTextError } from '../../pdf/text-search.ts';
import type { Storage } from '../../storage/storage.ts';
import { fieldTypeSpec } from '../documents-core/field-types.ts';
import {
  fieldExtras,
  FieldTypeSchema,
  type FieldInputT,
} from '../documents-core/fields.schemas.ts';

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

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The field bodies each anchored input makes, placed on the file at `fileKey` (one list per
 * input, in its order). 400 `anchor_not_found` naming every anchor with no occurrence (unless it
 * sets `ignoreIfMissing`); 400 `validation_error` when a placed field would leave its page.
 * `pathOf(i)` names input `i` in errors (`body`, `body.fields.2`).
 */
export async function placeAnchoredFields(
  deps: { storage: Storage },
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
    deps.storage,
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
async function searchFile(storage: Storage, key: string, needles: string[]) {
  const tmp = path.join(os.tmpdir(), `signet-anchor-${randomBytes(8).toString('hex')}.pdf`);
  try {
    await pipeline(await storage.get(key), createWriteStream(tmp));
    return await findTextInWorker(tmp, needles);
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
