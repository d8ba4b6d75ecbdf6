import { Type, type Static, type TSchema } from 'typebox';

/** Shared schema primitives: every route builds on these so the OpenAPI document speaks one language. */

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds',
});

/**
 * `schema` or null, written as one schema whose `type` lists "null" (and whose `enum`, if any,
 * holds null) rather than as `anyOf: [schema, {type: "null"}]`. Same meaning in JSON Schema and
 * OpenAPI 3.1, but the response serializer (fast-json-stringify) writes a type list with a
 * `typeof` check, while for an `anyOf` it runs an Ajv validator per value to pick the branch,
 * compiled on the first response that reaches it: 50-300 ms of a blocked event loop per route
 * after each start (seen with a CPU profile of `npm run bench -- hostile`), and an Ajv instance
 * per route at boot. A schema without a single `type` (a union) keeps the `anyOf`.
 */
export function Nullable<T extends TSchema>(schema: T, options: { description?: string } = {}) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') return Type.Union([schema, Type.Null()], options);
  const values = (schema as { enum?: unknown[] }).enum;
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    ...options,
    type: [type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
}

export const NullableTimestamp = Nullable(Timestamp);

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

const PageMeta = Type.Object(
  {
    count: Type.Integer({ description: 'Items in this page' }),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String(), {
      description: 'Pass as `cursor` to read the next page; null on the last page',
    }),
  },
  { $id: 'PageMeta' },
);

export const PageQuery = {
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'A `nextCursor` from an earlier response',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (1-100)' }),
  ),
};

/** A page of `item`s; `description` names the response in the API reference ("The page of documents"). */
export const Page = <T extends TSchema>(item: T, description?: string) =>
  Type.Object({ data: Type.Array(item), meta: PageMeta }, description ? { description } : {});
/** One `item` under `data`; `description` names the response in the API reference ("The document"). */
export const Data = <T extends TSchema>(item: T, description?: string) =>
  Type.Object({ data: item }, description ? { description } : {});

export const NoContent = Type.Null({ description: 'No content' });

/** A string that must be one of `values` (one `enum` keyword: clear errors and a clean OpenAPI document). */
// Type.Unsafe keeps the literal union as the static type (Type.Enum with a `type` option widens it to string).
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ enum: values, type: 'string', ...options });
