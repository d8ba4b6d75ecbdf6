import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import type { Payload } from './arbitraries.ts';

/** Generated requests per endpoint: 1,000 (PROPERTY_RUNS lowers it for a quick local loop). */
export const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

export interface Probe {
  status: number;
  json: any;
  raw: LightMyRequestResponse;
}

/**
 * Sends one generated request and checks what must hold for any input whatsoever: no 5xx, an
 * `X-Request-Id`, and every 4xx in the error body of the README with a code from the table whose
 * status matches. Returns the reply for endpoint-specific checks.
 */
export async function probe(
  t: TestApp,
  method: string,
  url: string,
  body?: Payload,
): Promise<Probe> {
  const headers: Record<string, string> = { authorization: `Bearer ${t.key}` };
  if (body?.contentType) headers['content-type'] = body.contentType;
  const raw = await t.app.inject({ method: method as never, url, headers, payload: body?.payload });
  const context = `${method} ${url.slice(0, 300)}\nbody: ${body?.payload?.slice(0, 300)}\n→ ${raw.statusCode} ${raw.body.slice(0, 500)}`;
  expect(raw.statusCode, context).toBeLessThan(500);
  expect(raw.headers['x-request-id'], context).toMatch(/^req_/);
  let json: any;
  if (raw.body) {
    expect(raw.headers['content-type'], context).toMatch(/^application\/json/);
    json = JSON.parse(raw.body);
  }
  if (raw.statusCode >= 400) {
    expect(Object.keys(json ?? {}), context).toEqual(['error']);
    const { code, message, details, ...rest } = json.error;
    expect(rest, context).toEqual({});
    expect(Object.keys(ERROR_STATUS), context).toContain(code);
    expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], context).toBe(raw.statusCode);
    expect(typeof message, context).toBe('string');
    expect(message.length, context).toBeGreaterThan(0);
    if (details !== undefined) expect(Array.isArray(details), context).toBe(true);
  } else {
    expect(raw.statusCode, context).toBeGreaterThanOrEqual(200);
    if (raw.statusCode !== 204) expect(json, context).toHaveProperty('data');
  }
  return { status: raw.statusCode, json, raw };
}

/** Checks of a successful list page that hold for every query. */
export function expectPage(p: Probe, limit: number | undefined): void {
  expect(Array.isArray(p.json.data)).toBe(true);
  expect(p.json.meta.count).toBe(p.json.data.length);
  expect(p.json.data.length).toBeLessThanOrEqual(limit ?? 25);
  expect(p.json.meta.hasMore || p.json.meta.nextCursor === null).toBe(true);
}

/** The `limit` a query string asks for, read the way the validator coerces text to an integer (`1e2` is 100). */
export function limitOf(query: string): number | undefined {
  const values = new URLSearchParams(query).getAll('limit');
  const n = Number(values[0]);
  return values.length === 1 && values[0] !== '' && Number.isInteger(n) ? n : undefined;
}

const TABLES = [
  'documents',
  'signers',
  'fields',
  'folders',
  'audit_logs',
  'events',
  'jobs',
] as const;

/**
 * Row counts of every table a write could touch, across the whole (per-file) database, so a
 * refused request that leaves a stray row, audit entry, event or job anywhere is caught.
 */
export async function counts(t: TestApp): Promise<Record<string, number>> {
  const db = t.database.handle.db;
  const parts = TABLES.map((table) => sql`(select count(*) from ${sql.table(table)})`.as(table));
  const row = await db.selectNoFrom(parts as never).executeTakeFirstOrThrow();
  return Object.fromEntries(
    Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, Number(v)]),
  );
}

/** The id a generated path segment names (undecoded when it is not valid percent-encoding). */
export function idFrom(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** One row as stored, to compare before and after a refused edit. */
export async function rowOf(
  t: TestApp,
  table: 'documents' | 'signers' | 'fields' | 'folders',
  id: string,
): Promise<unknown> {
  // No row can have such an id, and PostgreSQL refuses U+0000 even in a lookup.
  if (id.includes('\u0000')) return undefined;
  return t.database.handle.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Counts answers by status, to check the generators really reach both sides of the rules: a
 * property that only ever sees 400s would pass without testing the services behind validation.
 */
export class Tally {
  readonly byStatus = new Map<number, number>();
  add(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }
  share(predicate: (status: number) => boolean): number {
    let total = 0;
    let hits = 0;
    for (const [status, n] of this.byStatus) {
      total += n;
      if (predicate(status)) hits += n;
    }
    return total === 0 ? 0 : hits / total;
  }
  /** At least `min` of the answers succeeded and at least `min` were refused. */
  expectMix(min = 0.05): void {
    const seen = JSON.stringify(Object.fromEntries(this.byStatus));
    // PROPERTY_STATS=1 prints the mix, to tune generators.
    if (process.env.PROPERTY_STATS) console.log(`${expect.getState().currentTestName}: ${seen}`);
    expect(
      this.share((s) => s < 300),
      `successes among ${seen}`,
    ).toBeGreaterThanOrEqual(min);
    expect(
      this.share((s) => s >= 400),
      `refusals among ${seen}`,
    ).toBeGreaterThanOrEqual(min);
  }
}

/** fast-check settings shared by every property: a fixed number of runs, reproducible from the printed seed. */
export const settings = { numRuns: RUNS, endOnFailure: false } as const;
