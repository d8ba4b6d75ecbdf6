/** Every error code the API can answer with, and its HTTP status. */
export const ERROR_STATUS = {
  /** Body, query or path fails its rules; `details` lists `{path, message}`. */
  validation_error: 400,
  /** The cursor was not issued by this endpoint. */
  invalid_cursor: 400,
  /** A field's `anchor.text` does not occur in the file (and `ignoreIfMissing` is not set). */
  anchor_not_found: 400,
  /** Missing, malformed, unknown or revoked API key. */
  unauthorized: 401,
  /** A signed link (upload URL, signing link) that is forged, replaced or expired. */
  forbidden: 403,
  /** Signing needs the emailed one-time code: none was given, or none was requested yet. */
  otp_required: 401,
  /** The one-time code is wrong, expired, or was tried too often (then a new code is needed). */
  invalid_otp: 403,
  /** Too many wrong codes over the life of the links: they are locked until the sender issues a new link. */
  link_locked: 403,
  /** The signer has an access code: call `POST …/access` first and send its session as `X-Signing-Session`. */
  access_code_required: 401,
  /** The access code is wrong (5 wrong codes lock the signer's links). */
  invalid_access_code: 403,
  /** The signer handed over to someone else: this link no longer works (the new person got their own). */
  link_replaced: 410,
  /** The document does not allow hand-over (`allowReassign`), or the signer has an access code. */
  reassign_not_allowed: 409,
  /** The organization requires consent to electronic records: `POST …/consent` or `consent: true` first. */
  consent_required: 409,
  /** Sequential signing: an earlier signer or approver has not finished yet. */
  not_your_turn: 409,
  /** The document requires identity evidence (KYC) that is missing, awaiting review or rejected. */
  verification_required: 409,
  /** The key lacks the endpoint's scope; `details` names it. */
  insufficient_scope: 403,
  /** No such resource in the caller's organization. */
  not_found: 404,
  /** The resource's status forbids the action. */
  invalid_state: 409,
  /** Send without signers. */
  missing_signers: 409,
  /** Send without fields. */
  missing_fields: 409,
  /** Send without an uploaded file. */
  missing_file: 409,
  /** An organization or campaign limit is reached. */
  limit_reached: 409,
  /** The Idempotency-Key was used with a different request body. */
  idempotency_conflict: 409,
  /** The same Idempotency-Key is still being processed by another request. */
  idempotency_in_progress: 409,
  /** Body or upload over its limit. */
  payload_too_large: 413,
  /** Upload bytes are not the declared type, or the type is not allowed. */
  unsupported_media_type: 415,
  /** Too many requests for this key. */
  rate_limited: 429,
  /** Anything unexpected; the message is never the internal one. */
  internal_error: 500,
  /** A dependency (database, storage) is unreachable. */
  service_unavailable: 503,
  /** The database is unreachable (restarting, down); nothing was changed; retry (`Retry-After`). */
  database_unavailable: 503,
  /** File storage is unavailable (directory not writable, S3 endpoint down); nothing was stored; retry. */
  storage_unavailable: 503,
  /** The queue for this work is full (public checks, PDF threads); nothing was done; retry after `Retry-After`. */
  busy: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The most `details` any error lists (the message says how many more there were). */
export const MAX_DETAILS = 100;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown[] | undefined;
  readonly headers: Record<string, string> | undefined;

  /** `cause`: what lay behind a refusal, for the server's log only (never in the response). */
  constructor(
    code: ErrorCode,
    message: string,
    details?: unknown[],
    headers?: Record<string, string>,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalidState = (message: string) => new AppError('invalid_state', message);
export const validation = (path: string, message: string) =>
  new AppError('validation_error', message, [{ path, message }]);
/** 503 `busy` with `Retry-After`: a queue was full and nothing was done. */
export const busy = (message: string, retryAfterSeconds: number) =>
  new AppError('busy', `${message}; try again in ${retryAfterSeconds} s`, undefined, {
    'Retry-After': String(retryAfterSeconds),
  });
