/**
 * A unique or primary-key violation: two requests inserted the same natural key at once (the
 * second one's read ran before the first one's insert committed). PostgreSQL reports it only
 * at the insert, after the read saw nothing; SQLite's single writer rarely sees it, but may.
 */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

/**
 * Runs `work` (a whole transaction) again when it lost such a race: the retry reads the row the
 * winner inserted and answers as it would have sequentially (for a code: "sent less than a minute
 * ago"). At most `attempts` runs; the last error is thrown as it is.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !isUniqueViolation(err)) throw err;
    }
  }
}
