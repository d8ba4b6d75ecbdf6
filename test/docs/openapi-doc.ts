import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';

/** Helpers over the served OpenAPI document: its operations, their examples, and validators for its schemas. */

export interface Operation {
  path: string;
  method: string;
  op: any;
}

export function operationsOf(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
}

/** A copy of `schema` with every `#/components/schemas/X` reference replaced by X itself, and no `$id` left. */
export function inline(doc: any, schema: unknown, depth = 0): any {
  if (depth > 20) throw new Error('schema nests too deep (a cycle?)');
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unresolved reference ${s.$ref}`);
    const { $ref: _ignored, ...rest } = s;
    return { ...inline(doc, target, depth + 1), ...inline(doc, rest, depth + 1) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (k !== '$id') out[k] = inline(doc, v, depth + 1);
  return out;
}

/** Ajv as the server configures it (http/validation.ts): all errors, formats, no coercion of bodies. */
export function validator(doc: any, schema: unknown, coerce = false) {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: false,
  });
  ajvFormats.default(ajv);
  const validate = ajv.compile(inline(doc, schema));
  return (value: unknown): string | null =>
    validate(value) ? null : ajv.errorsText(validate.errors);
}

/** The first 2xx status of an operation and its JSON schema and example, if it has them. */
export function success(op: any): {
  status: number;
  schema?: unknown;
  example?: unknown;
  description: string;
} {
  const status = Object.keys(op.responses)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];
  const r = op.responses[status];
  const media = r.content?.['application/json'];
  return {
    status: Number(status),
    schema: media?.schema,
    example: media?.example,
    description: r.description,
  };
}

/** The example request of an operation: path parameters, query and JSON body. */
export function exampleRequest(op: any): {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
} {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  for (const p of op.parameters ?? []) {
    if (p.example === undefined) continue;
    if (p.in === 'path') params[p.name] = p.example;
    else if (p.in === 'query') query[p.name] = p.example;
  }
  return { params, query, body: op.requestBody?.content?.['application/json']?.example };
}
