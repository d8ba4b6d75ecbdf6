/*
 * Who may put a page in a frame. A page of Signet's is framed only by itself and by the origins
 * its organization lists in `embedOrigins` (PATCH /api/v1/organization): anyone else framing a
 * public form or a signing page could lay a fake form over it. With no origin listed, nobody may.
 * The signing and campaign pages take this from their organization (as the builder page will);
 * `/verify` and `/docs` are never framed.
 */

/** The `frame-ancestors` sources for an organization's pages. */
export function frameAncestors(embedOrigins: readonly string[]): string {
  return embedOrigins.length === 0 ? "'none'" : ["'self'", ...embedOrigins].join(' ');
}

/** For pages nobody may frame. */
export const NO_FRAMING = frameAncestors([]);
