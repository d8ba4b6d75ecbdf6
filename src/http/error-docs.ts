import type { ErrorCode } from './errors.ts';

/**
 * What each error code means to a caller, and a message it could carry: the API reference lists
 * them under each operation's error responses (http/operation-docs.ts). Typed by ERROR_STATUS, so
 * a new code without its text fails to compile.
 */
export const ERROR_DOCS = {
  validation_error: [
    'the request breaks a rule; `details` lists each `{path, message}`',
    'body.name must not be blank',
  ],
  invalid_cursor: [
    '`cursor` was not issued by this list',
    'The cursor was not issued by this list; pass `nextCursor` from an earlier page',
  ],
  anchor_not_found: [
    'a field’s `anchor.text` does not occur in the file (set `ignoreIfMissing` to get an empty list instead); `details` names each anchor',
    'body.anchor.text does not occur in the file',
  ],
  unauthorized: [
    'missing, malformed, unknown or revoked API key',
    'The API key is unknown or revoked',
  ],
  forbidden: ['the link is forged, replaced or expired', 'This link is no longer valid'],
  otp_required: [
    'the document asks for the emailed one-time code first',
    'Enter the code we emailed you',
  ],
  invalid_otp: [
    'the one-time code is wrong, expired or was tried too often',
    'The code is wrong or has expired',
  ],
  link_locked: [
    'too many wrong codes (25): the links are locked until the sender issues a new one',
    'Too many wrong codes: this link is locked; ask the sender for a new link',
  ],
  access_code_required: [
    'the signer has an access code: `POST …/access` first, then send `X-Signing-Session`',
    'Enter the access code the sender gave you',
  ],
  invalid_access_code: [
    'the access code is wrong; 5 wrong codes lock the link',
    'The access code is wrong; 4 tries left before this link is locked',
  ],
  link_replaced: [
    'the signer handed over to someone else (`POST …/reassign`); this link no longer works, the new person got a link of their own',
    'This signing link was handed over to someone else and no longer works',
  ],
  reassign_not_allowed: [
    'the document does not allow hand-over (`allowReassign` is false), or the signer has an `accessCode`',
    'This document does not allow handing over to someone else',
  ],
  consent_required: [
    'the organization requires consent to electronic records: `POST …/consent` or `consent: true` first',
    'Accept the consent to use electronic records and signatures first',
  ],
  not_your_turn: [
    'sequential signing: an earlier signer has not finished',
    'An earlier signer has not signed yet',
  ],
  verification_required: [
    'identity evidence is missing, awaiting review or was rejected',
    'Identity evidence is awaiting review',
  ],
  insufficient_scope: [
    'the key lacks the scope this operation requires; `details` names it',
    'This API key lacks the scope documents.read',
  ],
  not_found: ['no such resource in your organization', 'Document not found'],
  invalid_state: [
    "the resource's status forbids the action",
    'Cannot send the document: it is pending, not draft',
  ],
  missing_signers: ['send without any signer', 'Add at least one signer before sending'],
  missing_fields: ['send without any field', 'Add at least one field before sending'],
  missing_file: ['send before a file was uploaded', 'Upload the PDF before sending'],
  limit_reached: [
    'an organization or campaign limit is reached',
    'An organization has at most 10 webhooks',
  ],
  idempotency_conflict: [
    'the `Idempotency-Key` was used with a different request',
    'This Idempotency-Key was used with a different request',
  ],
  idempotency_in_progress: [
    'a request with this `Idempotency-Key` is still running',
    'A request with this Idempotency-Key is still being processed',
  ],
  payload_too_large: [
    'the body or file is over its limit',
    'Request body is larger than this endpoint accepts (1048576 bytes)',
  ],
  unsupported_media_type: [
    'the body is not of an accepted type, or its bytes are not the declared type',
    'Send the request body as application/json',
  ],
  rate_limited: [
    'too many requests; wait `Retry-After` seconds',
    'Rate limit of 600 requests per minute exceeded; retry in 12 s',
  ],
  internal_error: [
    'unexpected; logged with the `X-Request-Id`',
    'An unexpected error occurred; it has been logged with the request id',
  ],
  service_unavailable: [
    'a dependency is unreachable; retry later',
    'A dependency is unavailable; retry later',
  ],
  database_unavailable: [
    'the database is unreachable; nothing was changed; retry after `Retry-After`',
    'The database is unavailable; retry shortly',
  ],
  storage_unavailable: [
    'file storage is unreachable; nothing was stored; retry',
    'File storage is unavailable; retry shortly',
  ],
  busy: [
    'the queue for this work is full; nothing was done; retry after `Retry-After`',
    '8 checks with a key are already in progress; try again in 6 s',
  ],
} as const satisfies Record<ErrorCode, readonly [string, string]>;

export const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};
