/*
 * What bounds an outsider's guesses (migration 0016a). Part of the table types of `Database`
 * (db/database.ts), whose storage conventions hold here too.
 */

/**
 * Wrong one-time codes tried against one subject over the life of its links: `signer:<id>` (any
 * method: email now, SMS later) or `campaign:<id>:<address>` for a public form. At the limit the
 * subject's links answer 403 `link_locked`; a signer's count is cleared when the sender issues a
 * new link.
 */
export interface CodeFailuresTable {
  subject: string;
  failures: number;
  updated_at: string;
}
