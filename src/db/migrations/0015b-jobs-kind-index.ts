import type { Kysely } from 'kysely';

/*
 * The job runner claims each kind (mail apart from the rest) separately: this index gives a kind's
 * due jobs in run_at order, so a claim reads as many as it takes, not every queued invitation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('jobs_kind_due')
    .on('jobs')
    .columns(['kind', 'status', 'run_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_kind_due').execute();
}
