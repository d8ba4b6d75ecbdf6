import type { Generated } from 'kysely';

/*
 * The organization, its API keys and the answers kept for Idempotency-Key; instance settings.
 * Part of the table types of `Database` (db/database.ts), whose storage conventions hold here too.
 */

export interface OrganizationsTable {
  id: string;
  name: string;
  admin_email: string;
  /** `#RRGGBB`, or null for Signet's own colour. */
  brand_color: string | null;
  /** A PNG or JPEG as a `data:` URL (at most 256 KB of image), or null. */
  logo: string | null;
  /** Reply-To of the organization's mail, or null. */
  reply_to: string | null;
  /** JSON array of the origins that may frame its signing and campaign pages (migration 0016a). */
  embed_origins: Generated<string>;
  /** The locale of its signers' pages and mails when neither signer nor document sets one (0020). */
  default_locale: Generated<string>;
  /** IANA time zone of the dates its signers read (0020). */
  time_zone: Generated<string>;
  /** 1: signers must accept the consent text first (migration 0018b). */
  require_consent: Generated<number>;
  /** null: Signet's default text; else a JSON string or a JSON object of locale → text. */
  consent_text?: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  key_hash: string;
  /** First characters of the key, to recognise it in listings. */
  prefix: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

export interface IdempotencyKeysTable {
  /** The API key that made the request (migration 0010b): records are never shared between keys. */
  api_key_id: string;
  org_id: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}
