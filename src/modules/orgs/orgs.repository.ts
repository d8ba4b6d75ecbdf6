import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';

/** The advisory lock insertFirstOrganization takes on PostgreSQL (an arbitrary constant: "signet" + 1). */
const BOOTSTRAP_LOCK = 0x5319e7_01;

/**
 * Inserts the organization only when the database has none yet; true when it did. Servers started
 * together on an empty database must not each create one, and each database needs its own form:
 * - PostgreSQL: they queue on an advisory lock held until the transaction ends, so the second
 *   sees the first's organization;
 * - SQLite: the insert is the transaction's first statement, and its write lock is taken before
 *   it reads, so the second sees the first's organization.
 */
export async function insertFirstOrganization(
  trx: Transaction<Database>,
  org: { id: string; name: string; adminEmail: string; now: string },
): Promise<boolean> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
  }
  const { numAffectedRows } =
    await sql`insert into organizations (id, name, admin_email, created_at, updated_at)
    select ${org.id}, ${org.name}, ${org.adminEmail}, ${org.now}, ${org.now} where not exists (select 1 from organizations)`.execute(
      trx,
    );
  return Boolean(numAffectedRows);
}
