import { sql, type SelectQueryBuilder } from 'kysely';
import { AppError } from './errors.ts';

/**
 * Keyset pagination shared by every list. A cursor names a position (the last row's sort key
 * and id) and the list it came from; it is opaque base64url JSON. Pages stay stable while rows
 * are added and cost the same at any depth, given an index on (scope…, sort column, id).
 */
export interface PageRequest {
  /** Which list issued the cursor; a cursor from another list is refused. */
  list: string;
  limit?: number;
  cursor?: string;
  /** `desc` (newest first, the default) or `asc` (oldest first: the audit log). */
  direction?: 'asc' | 'desc';
  /** Sort column; `created_at` unless said otherwise. */
  sortColumn?: string;
  /** Qualifier for columns when the query joins (e.g. `documents`). */
  table?: string;
}

export interface PageMeta {
  count: number;
  hasMore: boolean;
  nextCursor: string | null;
}

interface CursorBody {
  l: string;
  k: string;
  i: string;
}

function encodeCursor(list: string, key: string, id: string): string {
  return Buffer.from(JSON.stringify({ l: list, k: key, i: id } satisfies CursorBody)).toString(
    'base64url',
  );
}

function decodeCursor(list: string, cursor: string): CursorBody {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  const c = body as Partial<CursorBody> | undefined;
  // Issued cursors hold a sort key and an id: short, printable text. Anything else is forged, and
  // a U+0000 would make PostgreSQL fail the query rather than match nothing.
  const printable = (v: unknown): v is string =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
    typeof v === 'string' && v.length <= 200 && !/[\u0000-\u001f]/.test(v);
  if (!c || typeof c !== 'object' || c.l !== list || !printable(c.k) || !printable(c.i)) {
    throw new AppError(
      'invalid_cursor',
      'The cursor was not issued by this list; pass `nextCursor` from an earlier page',
    );
  }
  return c as CursorBody;
}

/** Applies the cursor, order and limit to `query`, runs it, and returns the page. */
export async function paginate<DB, TB extends keyof DB, R extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, R>,
  page: PageRequest,
): Promise<{ rows: R[]; meta: PageMeta }> {
  const paged = pageQuery(query, page);
  return paged.toPage((await paged.query.execute()) as R[]);
}

/**
 * `paginate` in two steps, for a caller that runs the query itself: the query with the cursor,
 * order and limit applied, and what turns its rows into the page.
 */
export function pageQuery<DB, TB extends keyof DB, R extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, R>,
  page: PageRequest,
) {
  const limit = page.limit ?? 25;
  const direction = page.direction ?? 'desc';
  const prefix = page.table ? `${page.table}.` : '';
  const sortColumn = `${prefix}${page.sortColumn ?? 'created_at'}`;
  const idColumn = `${prefix}id`;
  let q = query;
  if (page.cursor) {
    const c = decodeCursor(page.list, page.cursor);
    const op = direction === 'desc' ? '<' : '>';
    // A row-value comparison, not `k < ? or (k = ? and id < ?)`: both databases turn it into a
    // range on the (…, sort column, id) index and start reading at the cursor, so the last page of
    // a million documents costs what the first does; the `or` form made SQLite walk the index from
    // its start (last page 45× the first, measured with `npm run bench -- deep-pagination`).
    q = q.where(
      sql<boolean>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) ${sql.raw(op)} (${c.k}, ${c.i})`,
    );
  }
  q = q
    .orderBy(sql.ref(sortColumn), direction)
    .orderBy(sql.ref(idColumn), direction)
    .limit(limit + 1);
  const sortKey = page.sortColumn ?? 'created_at';
  return {
    query: q,
    toPage(fetched: R[]): { rows: R[]; meta: PageMeta } {
      const rows = fetched as (R & Record<string, unknown>)[];
      const hasMore = rows.length > limit;
      if (hasMore) rows.length = limit;
      const last = rows[rows.length - 1];
      return {
        rows,
        meta: {
          count: rows.length,
          hasMore,
          nextCursor:
            hasMore && last ? encodeCursor(page.list, String(last[sortKey]), last.id) : null,
        },
      };
    },
  };
}

/** `%` and `_` in a search term match themselves. */
export function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
