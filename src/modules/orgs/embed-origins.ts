import type { Executor } from '../../db/database.ts';
import { AppError, type ErrorDetail } from '../../http/errors.ts';

/*
 * The origins an organization lets frame its signing and campaign pages (`embedOrigins`, set by
 * PATCH /api/v1/organization). Each is stored as the browser writes an origin (scheme, host in
 * lower case and ASCII, port only when not the default), which is the form `frame-ancestors` and
 * postMessage's targetOrigin compare with.
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** One origin as given, or why it is not one. */
function originOf(given: string, production: boolean): { origin: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    return { problem: 'must be an origin such as https://app.example.com' };
  }
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/')
    return { problem: 'must be an origin only: scheme, host and optional port, no path' };
  if (given.includes('*')) return { problem: 'must name one host (no wildcard)' };
  if (url.protocol === 'http:') {
    if (!LOOPBACK.has(url.hostname))
      return { problem: 'must use https (http only for localhost, outside production)' };
    if (production) return { problem: 'must use https in production' };
  } else if (url.protocol !== 'https:') {
    return { problem: 'must use https' };
  }
  return { origin: url.origin };
}

/**
 * The list as it is stored: each entry checked and written as an origin, duplicates dropped;
 * 400 `validation_error` naming each bad entry.
 */
export function checkEmbedOrigins(given: readonly string[], production: boolean): string[] {
  const problems: ErrorDetail[] = [];
  const origins = new Set<string>();
  given.forEach((entry, i) => {
    const result = originOf(entry, production);
    if ('problem' in result)
      problems.push({ path: `body.embedOrigins.${i}`, message: result.problem });
    else origins.add(result.origin);
  });
  if (problems.length > 0)
    throw new AppError('validation_error', `${problems[0].path} ${problems[0].message}`, problems);
  return [...origins];
}

/** The stored column as a list (a value that is not a list of strings reads as none). */
export function parseEmbedOrigins(stored: string | null | undefined): string[] {
  try {
    const value: unknown = JSON.parse(stored ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** An organization's embed origins (none for an unknown organization). */
export async function embedOriginsOf(db: Executor, orgId: string): Promise<string[]> {
  const row = await db
    .selectFrom('organizations')
    .select('embed_origins')
    .where('id', '=', orgId)
    .executeTakeFirst();
  return parseEmbedOrigins(row?.embed_origins);
}
