/*
 * Column values as JSON, the same whichever database wrote them, and back into either database
 * exactly. Signet's own columns are text, integers and doubles (booleans as 0/1, JSON as text,
 * timestamps as ISO strings), but a backup copies whatever tables exist, so the other types a
 * migration could use are carried too:
 *   integer   a JSON number, or a string of digits beyond 2^53 (JSON numbers are doubles)
 *   real      a JSON number; "NaN", "Infinity", "-Infinity" and "-0" as strings (JSON has none)
 *   numeric   PostgreSQL numeric: its exact text
 *   boolean   true/false (SQLite stores 1/0)
 *   blob      base64 (SQLite blob, PostgreSQL bytea)
 *   json      the JSON text as stored, unparsed (so key order and spacing survive)
 *   text      the string
 */

export const COLUMN_TYPES = [
  'text',
  'integer',
  'real',
  'numeric',
  'boolean',
  'blob',
  'json',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** The portable type of a column from its declared SQLite type (its affinity rules) or PostgreSQL data_type. */
export function columnTypeOf(declared: string): ColumnType {
  const t = declared.toLowerCase();
  if (t === 'boolean' || t === 'bool') return 'boolean';
  if (t === 'json' || t === 'jsonb') return 'json';
  if (t === 'bytea' || t.includes('blob') || t === '') return 'blob';
  if (t.includes('int')) return 'integer';
  if (t.includes('char') || t.includes('clob') || t.includes('text')) return 'text';
  if (t.includes('real') || t.includes('floa') || t.includes('doub')) return 'real';
  if (t.startsWith('numeric') || t.startsWith('decimal')) return 'numeric';
  // Dates, times, uuids… travel as the text the database prints and reads back.
  return 'text';
}

export type Encoded = string | number | boolean | null;

const INTEGER = /^-?\d+$/;

/**
 * A value as read from the source (better-sqlite3 with safe integers, or node-pg with the raw
 * parsers of sql-conn.ts) into its portable JSON form.
 */
export function encodeValue(type: ColumnType, value: unknown): Encoded {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'bigint')
    return type === 'boolean'
      ? value !== 0n
      : Number.isSafeInteger(Number(value))
        ? Number(value)
        : value.toString();
  if (typeof value === 'number') {
    if (type === 'boolean') return value !== 0;
    if (!Number.isFinite(value)) return String(value);
    return Object.is(value, -0) ? '-0' : value;
  }
  if (typeof value === 'string' && type === 'integer' && INTEGER.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  if (typeof value === 'boolean') return value;
  return String(value);
}

/**
 * A portable value back into what the target's driver binds for a column of `target` type:
 * SQLite takes no booleans (1/0) and takes big integers as BigInt; PostgreSQL takes strings.
 */
export function decodeValue(
  source: ColumnType,
  target: ColumnType,
  dialect: 'sqlite' | 'postgres',
  value: Encoded,
): unknown {
  if (value === null) return null;
  if (source === 'blob' && typeof value === 'string') return Buffer.from(value, 'base64');
  if (typeof value === 'boolean') {
    if (target === 'boolean' && dialect === 'postgres') return value;
    return value ? 1 : 0;
  }
  if (source === 'real' && typeof value === 'string') {
    if (value === '-0') return -0;
    const n = Number(value);
    return Number.isNaN(n) && value !== 'NaN' ? value : n;
  }
  if (typeof value === 'string' && source === 'integer' && INTEGER.test(value))
    return dialect === 'sqlite' ? BigInt(value) : value;
  if (typeof value === 'number' && target === 'boolean' && dialect === 'postgres')
    return value !== 0;
  return value;
}
