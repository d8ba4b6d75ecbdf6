export { createSignetClient, type SignetClient, type SignetClientOptions } from './client.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export { MAX_RETRIES, retryAfterMs, type FetchLike } from './retry.js';
export type { components, operations, paths } from './schema.js';
