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
