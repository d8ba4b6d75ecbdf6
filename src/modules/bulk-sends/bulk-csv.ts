import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError, type ErrorDetail } from '../../http/errors.ts';
import { BULK_BODY_LIMIT, MAX_ROWS, type BulkRowT } from './bulk-sends.schemas.ts';

/** A CSV request body, parsed as it streamed in: the header and the records, as text. */
export class CsvTable {
  constructor(
    readonly header: string[],
    readonly records: string[][],
  ) {}
}

/** Longest single cell: a prefill value is at most 10,000 characters, a name 200. */
const MAX_CELL = 64 * 1024;

/** Columns of a CSV body: roles × 3, a document name and field labels fit many times over. */
const MAX_CSV_COLUMNS = 200;

const COMMA = 0x2c;
const QUOTE = 0x22;
const LF = 0x0a;

/**
 * Counts the columns of each line as the bytes pass, before the parser builds any record: the
 * parser bounds a record by its characters, and a line of 32,000 empty cells has none, but would
 * still cost an array of 32,000 strings per row. Quotes are followed as RFC 4180 has them (a
 * doubled quote inside a quoted cell toggles twice), so a comma or line break inside quotes
 * does not count.
 */
class ColumnGuard extends Transform {
  private inQuotes = false;
  private commas = 0;
  private line = 1;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) this.inQuotes = !this.inQuotes;
      else if (this.inQuotes) continue;
      else if (byte === COMMA) {
        if (++this.commas >= MAX_CSV_COLUMNS) {
          callback(tooManyColumns(this.line));
          return;
        }
      } else if (byte === LF) {
        this.commas = 0;
        this.line++;
      }
    }
    callback(null, chunk);
  }
}

const tooManyColumns = (line: number) =>
  new AppError('validation_error', `A CSV body has at most ${MAX_CSV_COLUMNS} columns`, [
    {
      path: line === 1 ? 'header' : `line ${line}`,
      message: `has more than ${MAX_CSV_COLUMNS} columns`,
    },
  ]);

/**
 * Parses a `text/csv` body while it arrives (csv-parse; RFC 4180 quoting, a BOM dropped), never
 * holding more than the records themselves: over 16 MB is 413, more than 10,000 data rows, a line
 * of more than MAX_CSV_COLUMNS columns (counted before it is parsed) or a malformed line (an
 * unclosed quote, a row with another number of columns) is 400.
 */
export async function readCsv(body: Readable): Promise<CsvTable> {
  let bytes = 0;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    max_record_size: MAX_CELL,
    relax_column_count: false,
  });
  const records: string[][] = [];
  let tooLarge = false;
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > BULK_BODY_LIMIT && !tooLarge) {
      tooLarge = true;
      parser.destroy(
        new AppError('payload_too_large', `The CSV is larger than ${BULK_BODY_LIMIT} bytes`),
      );
    }
  });
  const guard = new ColumnGuard();
  guard.on('error', (err) => parser.destroy(err));
  body.pipe(guard).pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      records.push(record);
      if (records.length > MAX_ROWS + 1) throw tooManyRows();
    }
  } catch (err) {
    body.unpipe(guard);
    if (err instanceof AppError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError('validation_error', `The CSV could not be read: ${message}`, [
      { path: 'body', message },
    ]);
  }
  if (records.length === 0)
    throw new AppError('validation_error', 'The CSV is empty', [
      { path: 'body', message: 'needs a header row and at least one row' },
    ]);
  const [header, ...rows] = records;
  if (rows.length === 0)
    throw new AppError('validation_error', 'The CSV has a header but no rows', [
      { path: 'body', message: 'needs at least one row' },
    ]);
  return new CsvTable(
    header.map((h) => h.trim()),
    rows,
  );
}

const tooManyRows = () =>
  new AppError('validation_error', `A bulk send has at most ${MAX_ROWS} rows`, [
    { path: 'body', message: `has more than ${MAX_ROWS} rows` },
  ]);

type Column =
  | { kind: 'signer'; role: string; part: 'name' | 'email' | 'phone' | 'locale' }
  | { kind: 'document name' }
  | { kind: 'locale' }
  | { kind: 'value'; label: string };

/**
 * Turns the CSV's records into the rows of the JSON body. Columns are matched to the template's
 * open roles and field labels case-insensitively; an unknown column is refused (it would
 * otherwise be silently dropped). Empty cells are absent values.
 */
export function csvToRows(table: CsvTable, openRoles: string[], fieldLabels: string[]): BulkRowT[] {
  const roleByKey = new Map(openRoles.map((r) => [r.trim().toLowerCase(), r]));
  const labelByKey = new Map(fieldLabels.map((l) => [l.trim().toLowerCase(), l]));
  const problems: ErrorDetail[] = [];
  const columns: (Column | null)[] = table.header.map((raw, i) => {
    const key = raw.toLowerCase();
    if (key === 'document name') return { kind: 'document name' };
    if (key === 'locale') return { kind: 'locale' };
    const signer = /^(.*\S)\s+(name|email|phone|locale)$/.exec(key);
    if (signer && roleByKey.has(signer[1]))
      return {
        kind: 'signer',
        role: roleByKey.get(signer[1])!,
        part: signer[2] as 'name' | 'email' | 'phone' | 'locale',
      };
    if (labelByKey.has(key)) return { kind: 'value', label: labelByKey.get(key)! };
    problems.push({
      path: `header column ${i + 1}`,
      message: `"${raw}" is neither "<role> name/email/phone/locale" of a role without a fixed signer, "document name", "locale", nor a field label`,
    });
    return null;
  });
  const seen = new Set<string>();
  table.header.forEach((raw, i) => {
    const key = raw.toLowerCase();
    if (seen.has(key))
      problems.push({ path: `header column ${i + 1}`, message: `"${raw}" appears twice` });
    seen.add(key);
  });
  if (problems.length > 0)
    throw new AppError('validation_error', `${problems[0].path}: ${problems[0].message}`, problems);

  return table.records.map((record) => {
    const row: BulkRowT = { signers: [] };
    const signers = new Map<
      string,
      { role: string; name: string; email: string; phone?: string; locale?: string }
    >();
    record.forEach((cell, i) => {
      const column = columns[i]!;
      const value = cell.trim();
      if (value === '') return;
      if (column.kind === 'document name') row.name = value;
      else if (column.kind === 'locale') row.locale = value;
      else if (column.kind === 'value') {
        row.values ??= {};
        row.values[column.label] = value;
      } else {
        const s = signers.get(column.role) ?? { role: column.role, name: '', email: '' };
        s[column.part] = value;
        signers.set(column.role, s);
      }
    });
    row.signers = [...signers.values()];
    return row;
  });
}
