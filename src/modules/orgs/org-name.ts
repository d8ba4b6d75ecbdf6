import type { Executor } from '../../db/database.ts';

/** The organization's name as mails and signing pages show it; `Signet` if the organization is gone. */
export async function orgNameOf(db: Executor, orgId: string): Promise<string> {
  const org = await db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', orgId)
    .executeTakeFirst();
  return org?.name ?? 'Signet';
}

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
