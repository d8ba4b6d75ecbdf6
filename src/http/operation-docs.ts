import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import { ERROR_DOCS, STATUS_TITLES } from './error-docs.ts';
import { UNLIMITED } from './rate-limit.ts';
import { EX } from './examples.ts';

/**
 * A realistic call of an operation, shown in the API reference next to its schemas. The ids in it
 * are the example ids of http/examples.ts; the test suite sends every example to a real server
 * with real ids in their place and expects the documented success status.
 */
export interface OperationExample {
  params?: Record<string, string>;
  querystring?: Record<string, unknown>;
  /** A JSON body; bodies of raw bytes (uploads, CSV, verification) are described, not exemplified. */
  body?: unknown;
  /** The success response's body; absent for 204 and for file downloads. */
  response?: unknown;
}

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The error codes this operation raises itself (state, lookups, its own limits). Those every
     * operation of its kind can answer (authentication, scope, validation, body limits, rate limit,
     * idempotency, an unavailable database) are added by `commonErrorCodes`.
     */
    errorCodes?: readonly ErrorCode[];
    example?: OperationExample;
  }
}

/** Methods whose request body Fastify reads (a DELETE's too: a body sent with one is parsed, and refused when over the limit). */
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Routes that answer with the API's error body (the API, signed links and uploads); pages and operations are not. */
const isApiRoute = (url: string) => /^\/(api\/v1|uploads)\//.test(url);

interface RouteShape {
  method: string | string[];
  url: string;
  schema?: { params?: unknown; querystring?: unknown; body?: unknown };
  config?: { scope?: string; idempotency?: boolean };
}

/**
 * The error codes an API operation can answer whatever it does, from what the shared machinery
 * does to a request before and around its handler:
 * - every operation: `internal_error`; `database_unavailable` (keys, links and resources are in the database);
 * - not an operational route: `rate_limited` (http/rate-limit.ts);
 * - with a scope: `unauthorized`, `insufficient_scope` (http/auth.ts);
 * - a scoped POST: `idempotency_conflict`, `idempotency_in_progress`, and `validation_error` for a bad key (http/idempotency.ts);
 * - path, query or body to validate, or a method with a body (malformed JSON): `validation_error`; a `cursor`: `invalid_cursor`;
 * - POST, PUT, PATCH, DELETE: `payload_too_large` (body limits); POST, PATCH, DELETE: `unsupported_media_type` (a
 *   body of a type no parser takes). PUT operations take raw bytes of any type and refuse them themselves.
 */
export function commonErrorCodes(route: RouteShape): ErrorCode[] {
  if (!isApiRoute(route.url)) return [];
  const methods = [route.method].flat();
  const schema = route.schema ?? {};
  const codes: ErrorCode[] = [];
  const takesBody = methods.some((m) => BODY_METHODS.includes(m));
  const scoped = route.config?.scope !== undefined;
  if (
    schema.params ||
    schema.querystring ||
    schema.body ||
    takesBody ||
    (scoped && methods.includes('POST'))
  )
    codes.push('validation_error');
  const query = schema.querystring as { properties?: Record<string, unknown> } | undefined;
  if (query?.properties?.cursor) codes.push('invalid_cursor');
  if (scoped) codes.push('unauthorized', 'insufficient_scope');
  if (scoped && methods.includes('POST') && route.config?.idempotency !== false)
    codes.push('idempotency_conflict', 'idempotency_in_progress');
  if (takesBody) codes.push('payload_too_large');
  if (methods.some((m) => m === 'POST' || m === 'PATCH' || m === 'DELETE'))
    codes.push('unsupported_media_type');
  if (!UNLIMITED.test(route.url)) codes.push('rate_limited');
  codes.push('internal_error', 'database_unavailable');
  return codes;
}

/** Every code an operation can answer: its own and the common ones, in the order of ERROR_STATUS. */
function operationErrorCodes(
  route: RouteShape & { schema?: { errorCodes?: readonly ErrorCode[] } },
): ErrorCode[] {
  const all = new Set<ErrorCode>([...commonErrorCodes(route), ...(route.schema?.errorCodes ?? [])]);
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => all.has(c));
}

/** The error responses of an operation, one per status, naming each code it can carry, with an example body. */
function errorResponses(codes: readonly ErrorCode[]): Record<number, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const responses: Record<number, object> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const text = list.map((c) => `\`${c}\`: ${ERROR_DOCS[c][0]}`).join('; ');
    responses[status] = {
      // allOf, not a bare $ref: the document generator drops the siblings of a $ref, and the example is one.
      allOf: [{ $ref: 'ErrorBody' }],
      description: `${STATUS_TITLES[status] ?? 'Error'}. ${text}.`,
      examples: [{ error: { code: list[0], message: ERROR_DOCS[list[0]][1] } }],
    };
  }
  return responses;
}

type Schemaish = Record<string, unknown> & { properties?: Record<string, object> };

/** A copy of an object schema whose properties carry their example value. */
function withPropertyExamples(
  schema: unknown,
  values: Record<string, unknown> | undefined,
): unknown {
  if (!values) return schema;
  const s = schema as Schemaish;
  const properties = { ...s.properties };
  for (const [name, value] of Object.entries(values)) {
    if (!properties[name])
      throw new Error(`Example names "${name}", which the schema does not have`);
    properties[name] = { ...properties[name], examples: [value] };
  }
  return { ...s, properties };
}

/** The example id of each path parameter, by the collection it follows (`/documents/:id` is a document). */
const PARAM_EXAMPLES: Record<string, string> = {
  documents: EX.doc,
  folders: EX.fol,
  templates: EX.tpl,
  campaigns: EX.cmp,
  webhooks: EX.whk,
  'bulk-sends': EX.bsd,
  exports: EX.exp,
  signers: EX.sgn,
  roles: EX.rol,
  deliveries: EX.dlv,
  attachments: EX.att,
  signing: EX.token,
  build: EX.builderToken,
};

/** Example values of a route's path parameters, derived from its URL; a template's fields (and a campaign form's) have their own example id. */
function pathExamples(url: string): Record<string, string> {
  const parts = url.split('/');
  const values: Record<string, string> = {};
  parts.forEach((part, i) => {
    if (!part.startsWith(':')) return;
    const name = part.slice(1);
    const before = parts[i - 1];
    if (name === 'slug') values.slug = EX.slug;
    else if (before === 'fields')
      values[name] = parts[3] === 'templates' || parts[3] === 'public' ? EX.tfld : EX.fld;
    else if (PARAM_EXAMPLES[before]) values[name] = PARAM_EXAMPLES[before];
  });
  return values;
}

/** Who may call an operation, said in its description: the scope its key needs, or how it is authenticated instead. */
function whoMayCall(route: RouteOptions): string {
  const scope = route.config?.scope;
  if (scope === 'any')
    return '**Scope:** none: any API key, whatever its scopes (as `Authorization: Bearer sk_…`).';
  if (scope)
    return `**Scope:** \`${scope}\` (an API key carrying it, as \`Authorization: Bearer sk_…\`).`;
  if (route.url.startsWith('/api/v1/signing/'))
    return "**No API key:** the signing link's token in the path authenticates the signer.";
  if (route.url.startsWith('/api/v1/build/'))
    return "**No API key:** the builder link's token in the path authenticates the person placing fields.";
  if (route.url.startsWith('/uploads/'))
    return '**No API key:** the signed token in the upload URL authenticates the upload.';
  if (route.url.endsWith('/download') && route.url.startsWith('/api/v1/organization/exports/'))
    return "**No API key:** the signed token in the export's `downloadUrl` authenticates the download.";
  if (route.url.startsWith('/api/v1/public/'))
    return '**No API key:** public, for anyone holding the campaign link; rate limited per IP address.';
  return '**No API key:** for load balancers and monitoring; never rate limited.';
}

/** A body schema with its example: on the JSON schema of a body declared per content type, else on the body schema. */
function withExample(body: unknown, value: unknown): unknown {
  const b = body as { content?: Record<string, { schema: object }> };
  const json = b.content?.['application/json'];
  if (!json) return { ...(body as object), examples: [value] };
  return {
    ...b,
    content: {
      ...b.content,
      'application/json': { ...json, schema: { ...json.schema, examples: [value] } },
    },
  };
}

/** The success status of a route: its lowest 2xx response. */
const successStatus = (response: Record<string, unknown>) =>
  Object.keys(response)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];

/**
 * Completes every API route's documentation as it is declared: the error responses from
 * `operationErrorCodes` (never listed by hand), and the route's `example` placed on its
 * parameters, body and success response. Register before the routes.
 */
export function registerOperationDocs(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema;
    if (!schema || schema.hide) return;
    const response = { ...(schema.response as Record<string, unknown> | undefined) };
    Object.assign(
      response,
      errorResponses(
        operationErrorCodes({ method: route.method, url: route.url, schema, config: route.config }),
      ),
    );
    const example = schema.example;
    const params = { ...pathExamples(route.url), ...example?.params };
    if (schema.params && Object.keys(params).length > 0)
      schema.params = withPropertyExamples(schema.params, params);
    if (example?.querystring)
      schema.querystring = withPropertyExamples(schema.querystring, example.querystring);
    if (example?.body !== undefined) schema.body = withExample(schema.body, example.body);
    const ok = successStatus(response);
    if (example?.response !== undefined && ok)
      response[ok] = { ...(response[ok] as object), examples: [example.response] };
    schema.response = response;
    schema.description = [schema.description, whoMayCall(route)].filter(Boolean).join('\n\n');
  });
}
