import type { Executor } from '../../db/database.ts';

/** What mails to an organization's signers need of it: its name, `defaultLocale` and `timeZone`. */
export async function orgMailOf(
  db: Executor,
  orgId: string,
): Promise<{ orgName: string; orgLocale: string | null; timeZone: string }> {
  const org = await db
    .selectFrom('organizations')
    .select(['name', 'default_locale', 'time_zone'])
    .where('id', '=', orgId)
    .executeTakeFirst();
  return {
    orgName: org?.name ?? 'Signet',
    orgLocale: org?.default_locale ?? null,
    timeZone: org?.time_zone ?? 'UTC',
  };
}
