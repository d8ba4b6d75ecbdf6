import { Type, type Static, type TSchema } from 'typebox';

/** Shared schema primitives: every route builds on these so the OpenAPI document speaks one language. */

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An opaque identifier with its type prefix, e.g. `doc_01j…`. */
export const Id = (prefix: string) =>
  Type.String({ minLength: 1, maxLength: 64, description: `Identifier (\`${prefix}_…\`)` });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable error code' }),
      message: Type.String({ description: 'Human-readable sentence' }),
      details: Type.Optional(Type.Array(Type.Unknown())),
    }),
  },
  { $id: 'ErrorBody', description: 'Every error has this shape' },
);
export type ErrorBodyT = Static<typeof ErrorBody>;

export const PageMeta = Type.Object(
  {
    count: Type.Integer({ description: 'Items in this page' }),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to read the next page; null on the last page' }),
  },
  { $id: 'PageMeta' },
);

export const PageQuery = {
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'A `nextCursor` from an earlier response' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (1-100)' })),
};

export const Page = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: PageMeta });
export const Data = <T extends TSchema>(item: T) => Type.Object({ data: item });

/** Error responses by status, for a route's `response` map. */
const errorRef = (description: string) => ({ ...Type.Ref('ErrorBody'), description });
export const Errors = {
  400: errorRef('Validation failed (`validation_error`) or bad cursor (`invalid_cursor`)'),
  401: errorRef('Missing, malformed, unknown or revoked API key (`unauthorized`)'),
  403: errorRef('The key lacks the required scope (`insufficient_scope`)'),
  404: errorRef('No such resource in your organization (`not_found`)'),
  409: errorRef('The resource state forbids the action, a limit is reached, or an Idempotency-Key conflict'),
  413: errorRef('Payload too large (`payload_too_large`)'),
  415: errorRef('Unsupported media type (`unsupported_media_type`)'),
  429: errorRef('Rate limited (`rate_limited`); see `Retry-After`'),
  500: errorRef('Unexpected error (`internal_error`)'),
} as const;

type ErrorStatus = keyof typeof Errors;
/** Picks error responses for a route; 401, 403, 429 and 500 apply to every authenticated route. */
export function errors(...statuses: ErrorStatus[]) {
  const picked: Partial<Record<ErrorStatus, (typeof Errors)[ErrorStatus]>> = {};
  for (const s of [...statuses, 401, 403, 429, 500] as ErrorStatus[]) picked[s] = Errors[s];
  return picked;
}

export const NoContent = Type.Null({ description: 'No content' });

/** A string that must be one of `values` (one `enum` keyword: clear errors and a clean OpenAPI document). */
// Type.Unsafe keeps the literal union as the static type (Type.Enum with a `type` option widens it to string).
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ enum: values, type: 'string', ...options });
