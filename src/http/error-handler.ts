import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, busy, MAX_DETAILS, type ErrorCode, type ErrorDetail } from './errors.ts';
import { CredentialError } from './credential-error.ts';
import { WorkerBusyError } from '../pdf/bounded-worker.ts';
import { databaseUnavailable, isDatabaseUnavailable } from './unavailable.ts';

export interface AjvLikeError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

/** Turns Ajv's errors into `{path, message}` details, e.g. `body.name: must NOT have more than 200 characters`. */
export function validationDetails(
  context: string | undefined,
  errors: AjvLikeError[],
): ErrorDetail[] {
  // A failed anyOf (e.g. "a string or null") reports every branch; the first branch's reason is the useful one.
  const seen = new Set<string>();
  // Bounded before the work below (which compares details with each other): the answer lists at
  // most MAX_DETAILS anyway, and a 16 MB body can carry tens of thousands of errors.
  const details = errors.slice(0, 10 * MAX_DETAILS).map((e) => {
    let path = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties' && e.params?.additionalProperty) {
      path = [path, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not a known field';
    } else if (e.keyword === 'required' && e.params?.missingProperty) {
      path = [path, String(e.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required';
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    } else {
      message = plainMessage(e) ?? message;
    }
    return { path: [context, path].filter(Boolean).join('.'), message, keyword: e.keyword };
  });
  return details
    .filter(
      (d) =>
        !(d.keyword === 'anyOf' && details.some((o) => o.path === d.path && o.keyword !== 'anyOf')),
    )
    .filter((d) =>
      d.keyword === 'type' && d.message === 'must be null' ? details.length === 1 : true,
    )
    .filter((d) => {
      const k = `${d.path}\0${d.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .map(({ path, message }) => ({ path, message }));
}

/** What a pattern asks for, said plainly (a regular expression means nothing to most readers). */
const PATTERNS: Record<string, string> = {
  '\\S': 'must not be blank',
  '^#[0-9A-Fa-f]{6}$': 'must be a hex colour such as #0F766E',
  '^\\+?[0-9 ().-]{3,32}$': 'must be a phone number: digits, spaces and + ( ) . -',
  '^data:image/(png|jpeg);base64,':
    'must be a data:image/png;base64,… or data:image/jpeg;base64,… URL',
};
const FORMATS: Record<string, string> = {
  'date-time': 'must be a date-time with a time zone, e.g. 2026-12-01T12:00:00Z',
  date: 'must be a date such as 2026-12-01',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

/** Ajv's wording for a failed rule, in plain words; undefined keeps Ajv's own. */
function plainMessage(e: AjvLikeError): string | undefined {
  const p = e.params ?? {};
  switch (e.keyword) {
    case 'pattern':
      return PATTERNS[String(p.pattern)] ?? 'is not in the expected format (see the API reference)';
    case 'format':
      return FORMATS[String(p.format)] ?? `must be a valid ${String(p.format)}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'minProperties':
      return 'must set at least one field';
    default:
      return undefined;
  }
}

function send(
  reply: FastifyReply,
  status: number,
  code: ErrorCode | string,
  message: string,
  details?: unknown[],
) {
  const error: { code: string; message: string; details?: unknown[] } = { code, message };
  if (details && details.length > MAX_DETAILS) {
    error.message = `${message} (${details.length - MAX_DETAILS} more problem(s) not listed)`;
    error.details = details.slice(0, MAX_DETAILS);
  } else if (details && details.length > 0) error.details = details;
  return reply.code(status).send({ error });
}

/**
 * Errors Fastify raises before a route is found (it never calls the error handler for them): a
 * malformed percent-escape in the path, or a path segment over the router's length limit. They
 * get the same body and `X-Request-Id` as every other error. Passed as Fastify's `frameworkErrors`.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Request-Id', request.id);
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return send(
        reply,
        400,
        'validation_error',
        'The URL is malformed (a percent-escape is not valid)',
        [{ path: 'url', message: 'is not a valid URL' }],
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return send(reply, 400, 'validation_error', 'A path parameter is too long', [
        { path: 'params', message: 'is too long' },
      ]);
    default:
      request.log.error({ err }, 'unexpected routing error');
      return send(
        reply,
        500,
        'internal_error',
        'An unexpected error occurred; it has been logged with the request id',
      );
  }
}

interface ErrorHandlerOptions {
  /** What a refused credential answers (counted per address: http/credential-error.ts). */
  credentialRefused?: (request: FastifyRequest, err: CredentialError) => Promise<AppError>;
}

/** The one place errors become responses: the README's error body, never a stack trace, never an internal message on 5xx. */
export function registerErrorHandler(
  app: FastifyInstance,
  options: ErrorHandlerOptions = {},
): void {
  app.setErrorHandler(
    async (err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
      if (err instanceof CredentialError && options.credentialRefused)
        err = await options.credentialRefused(request, err);
      // A PDF thread's queue was full (an upload's page count, a check): nothing was kept.
      if (err instanceof WorkerBusyError)
        err = busy('Too many files are being read right now', err.retryAfterSeconds);
      if (err instanceof AppError) {
        if (err.headers) reply.headers(err.headers);
        if (err.status >= 500) request.log.error({ err }, 'request failed');
        else if (err.cause !== undefined) {
          // The reason behind a refusal (a PDF the reader could not read, and why), for operators only.
          const reason =
            err.cause instanceof Error
              ? `${err.cause.name}: ${err.cause.message}`
              : String(err.cause);
          request.log.warn({ code: err.code, reason }, 'request refused');
        }
        return send(reply, err.status, err.code, err.message, err.details);
      }
      const fe = err as FastifyError & { validationContext?: string };
      if (fe.validation) {
        const details = validationDetails(fe.validationContext, fe.validation as AjvLikeError[]);
        const first = details[0];
        const message = first
          ? `${first.path || 'request'} ${first.message}`
          : 'Request is invalid';
        return send(reply, 400, 'validation_error', message, details);
      }
      switch (fe.code) {
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return send(
            reply,
            413,
            'payload_too_large',
            `Request body is larger than this endpoint accepts (${request.routeOptions.bodyLimit ?? 1024 * 1024} bytes)`,
          );
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return send(
            reply,
            415,
            'unsupported_media_type',
            'Send the request body as application/json',
          );
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return send(
            reply,
            400,
            'validation_error',
            'Request body is empty but Content-Type is application/json',
            [{ path: 'body', message: 'must be a JSON object' }],
          );
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          return send(reply, 400, 'validation_error', 'Content-Length does not match the body');
        default:
          break;
      }
      if (fe.statusCode === 429) {
        return send(reply, 429, 'rate_limited', fe.message || 'Too many requests');
      }
      // A SyntaxError is the body's only when the body parser marked it 400: one thrown by Signet's own code
      // (a corrupt stored JSON value) is a server error, not the client's.
      if (
        fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
        (fe.statusCode === 400 && (err instanceof SyntaxError || /JSON/i.test(fe.message)))
      ) {
        return send(reply, 400, 'validation_error', 'Request body is not valid JSON', [
          { path: 'body', message: 'is not valid JSON' },
        ]);
      }
      if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
        return send(
          reply,
          fe.statusCode,
          fe.statusCode === 404 ? 'not_found' : 'validation_error',
          fe.message,
        );
      }
      if (isDatabaseUnavailable(err)) {
        request.log.warn({ err: err.message }, 'database unavailable');
        const unavailable = databaseUnavailable();
        reply.headers(unavailable.headers ?? {});
        return send(reply, unavailable.status, unavailable.code, unavailable.message);
      }
      request.log.error({ err }, 'unexpected error');
      return send(
        reply,
        500,
        'internal_error',
        'An unexpected error occurred; it has been logged with the request id',
      );
    },
  );

  app.setNotFoundHandler((request, reply) =>
    send(reply, 404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
  );
}
