import type { Compilable, OperationNodeSource, QueryCreator } from 'kysely';
import type { Database, Db } from './database.ts';
import { isNamed, nameStatement } from './named-statements.ts';

/** One insert of a statement made of several: built on the creator that holds the ones before. */
export type InsertPart = (qc: QueryCreator<Database>) => OperationNodeSource & Compilable<unknown>;

/** The shapes named so far: a create with 3 signers and 7 fields is another shape than one without. */
let shapes = 0;
const MAX_SHAPES = 32;

/**
 * PostgreSQL: several inserts sent as one statement (`with w0 as (insert …), w1 as (insert …)
 * insert …`). A statement is atomic on its own, so this replaces a transaction of N inserts (N + 2
 * round trips: begin, each insert, commit) with one round trip. Every part runs against the same
 * snapshot, so no part may depend on another's rows except through foreign keys (checked once the
 * statement is done, parents included). The statement is named (planned once per connection):
 * unnamed, its planning cost PostgreSQL what the round trips had cost Signet, and `POST
 * /api/v1/documents` ran no faster; named, 1,800 → 2,600 creates/s (bench/README).
 */
export async function insertAtOnce(db: Db, parts: InsertPart[]): Promise<void> {
  if (parts.length === 0) return;
  let qc = db as QueryCreator<Database>;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    qc = qc.with(`w${i}`, (c) => part(c) as never) as unknown as QueryCreator<Database>;
  }
  const query = parts[parts.length - 1](qc).compile();
  // Planned once per connection, like the transaction's named inserts it replaces; a bounded
  // number of shapes, the first ones met (the commonest, as a rule).
  if (shapes < MAX_SHAPES && !isNamed(query.sql)) {
    shapes++;
    nameStatement(query.sql);
  }
  await db.executeQuery(query);
}
