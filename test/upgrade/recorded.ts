import { createHash } from 'node:crypto';

/*
 * What an upgrade must keep: every answer of the API about the data a release wrote. The fixture
 * script (scripts/upgrade-fixtures.ts) records them from the release itself; test/upgrade/ asks
 * the same questions of today's code on the migrated database and compares.
 */

/** The SECRET_KEY the fixtures were written with (a test value: it protects nothing real). */
export const UPGRADE_SECRET_KEY = 'upgrade-fixture-secret-key-0123456789abcdef';

export type Get = (method: string, url: string) => Promise<unknown>;
interface PageAnswer {
  data: { id: string }[];
  meta?: { hasMore: boolean; nextCursor: string | null };
}
export type GetBytes = (url: string) => Promise<Buffer>;

export interface Recorded {
  /** Each GET's JSON answer, by URL. */
  answers: Record<string, unknown>;
  /** The SHA-256 of each download, by URL. */
  downloads: Record<string, string>;
}

/** Every page of a list, followed through `meta.nextCursor`. */
async function pages(
  get: Get,
  url: string,
  into: Record<string, unknown>,
): Promise<{ id: string }[]> {
  const items: { id: string }[] = [];
  for (let next = `${url}${url.includes('?') ? '&' : '?'}limit=100`; ; ) {
    const page = (await get('GET', next)) as PageAnswer;
    into[next] = page;
    items.push(...page.data);
    if (!page.meta?.hasMore) return items;
    next = `${url}${url.includes('?') ? '&' : '?'}limit=100&cursor=${encodeURIComponent(String(page.meta.nextCursor))}`;
  }
}

/** Asks every question (lists, details, audit logs, downloads, webhooks and their deliveries, campaigns, bulk sends). */
export async function answersToRecord(get: Get, bytes: GetBytes): Promise<Recorded> {
  const answers: Record<string, unknown> = {};
  const downloads: Record<string, string> = {};
  const one = async (url: string) => {
    answers[url] = await get('GET', url);
  };
  // Downloads first: a download is audited, so the audit logs below already hold it (in the
  // fixture's database too) whichever order a reader of them asks in.
  for (const doc of await pages(get, '/api/v1/documents', {})) {
    const detail = (await get('GET', `/api/v1/documents/${doc.id}`)) as {
      data: { documentHash: string };
    };
    if (detail.data.documentHash)
      downloads[`/api/v1/documents/${doc.id}/download`] = createHash('sha256')
        .update(await bytes(`/api/v1/documents/${doc.id}/download`))
        .digest('hex');
  }
  for (const doc of await pages(get, '/api/v1/documents', answers)) {
    await one(`/api/v1/documents/${doc.id}`);
    await pages(get, `/api/v1/documents/${doc.id}/audit`, answers);
  }
  for (const hook of await pages(get, '/api/v1/webhooks', answers)) {
    await one(`/api/v1/webhooks/${hook.id}`);
    await pages(get, `/api/v1/webhooks/${hook.id}/deliveries`, answers);
  }
  for (const tpl of await pages(get, '/api/v1/templates', answers))
    await one(`/api/v1/templates/${tpl.id}`);
  for (const c of await pages(get, '/api/v1/campaigns', answers)) {
    await one(`/api/v1/campaigns/${c.id}`);
    await pages(get, `/api/v1/campaigns/${c.id}/submissions`, answers);
  }
  for (const b of await pages(get, '/api/v1/bulk-sends', answers)) {
    await one(`/api/v1/bulk-sends/${b.id}`);
    await pages(get, `/api/v1/documents?bulkSendId=${b.id}`, answers);
  }
  await pages(get, '/api/v1/folders', answers);
  await one('/api/v1/organization');
  return { answers, downloads };
}
