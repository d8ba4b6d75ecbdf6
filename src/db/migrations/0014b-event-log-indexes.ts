import type { Kysely } from 'kysely';

/*
 * GET /api/v1/events pages an organization's events by time, optionally of one type; the
 * retention purge walks them by time too and finds each one's deliveries by event.
 */
const INDEXES = [
  ['events_org_created', 'events', ['org_id', 'created_at', 'id']],
  ['events_org_type_created', 'events', ['org_id', 'type', 'created_at', 'id']],
  ['webhook_deliveries_event', 'webhook_deliveries', ['event_id']],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES)
    await db.schema
      .createIndex(name)
      .on(table)
      .columns([...columns])
      .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
