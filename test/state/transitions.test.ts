import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAMPAIGN_STATUSES,
  DOCUMENT_STATUSES,
  SIGNER_STATUSES,
  WEBHOOK_STATUSES,
} from '../../src/db/database.ts';
import { CAMPAIGN_TRANSITIONS } from '../../src/modules/campaigns/campaign-status.ts';
import {
  DOCUMENT_TRANSITIONS,
  moveDocument,
} from '../../src/modules/documents-core/document-status.ts';
import { moveSigner, SIGNER_TRANSITIONS } from '../../src/modules/documents-core/signer-status.ts';
import { WEBHOOK_TRANSITIONS } from '../../src/modules/webhooks/webhook-status.ts';
import { IllegalTransitionError } from '../../src/state-machine.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, signer } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const statusOf = async (id: string) =>
  (
    await t.database.handle.db
      .selectFrom('documents')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).status;

describe('status state machines', () => {
  it('every status of each resource has a row in its transition table, naming only statuses of the resource', () => {
    for (const [statuses, table] of [
      [DOCUMENT_STATUSES, DOCUMENT_TRANSITIONS],
      [SIGNER_STATUSES, SIGNER_TRANSITIONS],
      [CAMPAIGN_STATUSES, CAMPAIGN_TRANSITIONS],
      [WEBHOOK_STATUSES, WEBHOOK_TRANSITIONS],
    ] as const) {
      expect(Object.keys(table).sort()).toEqual([...statuses].sort());
      for (const targets of Object.values(table) as string[][])
        for (const to of targets) expect(statuses).toContain(to);
    }
  });

  it('a final document status leads nowhere', () => {
    for (const done of ['completed', 'cancelled', 'expired', 'declined'] as const)
      expect(DOCUMENT_TRANSITIONS[done]).toEqual([]);
  });

  it('refuses an illegal document transition and leaves the row unchanged', async () => {
    const id = await createDocument(t, { signers: [signer(1)] });
    const db = t.database.handle.db;
    await expect(
      moveDocument(db, id, ['draft'], 'completed', { updated_at: new Date().toISOString() }),
    ).rejects.toThrow(IllegalTransitionError);
    await expect(moveDocument(db, id, ['completed'], 'pending', {})).rejects.toThrow(
      'A document cannot move from completed to pending',
    );
    expect(await statusOf(id)).toBe('draft');
  });

  it('an allowed move from a status the row is not in changes nothing', async () => {
    const id = await createDocument(t);
    const db = t.database.handle.db;
    expect(await moveDocument(db, id, ['pending'], 'cancelled', {})).toBe(false);
    expect(await statusOf(id)).toBe('draft');
    expect(await moveDocument(db, id, ['draft'], 'pending', {})).toBe(true);
    expect(await statusOf(id)).toBe('pending');
  });

  it('refuses an illegal signer transition', async () => {
    const id = await createDocument(t, { signers: [signer(1)] });
    const db = t.database.handle.db;
    const { id: signerId } = await db
      .selectFrom('signers')
      .select('id')
      .where('document_id', '=', id)
      .executeTakeFirstOrThrow();
    await expect(moveSigner(db, signerId, ['completed'], 'sent', {})).rejects.toThrow(
      'A signer cannot move from completed to sent',
    );
    await expect(moveSigner(db, signerId, ['pending'], 'viewed', {})).rejects.toThrow(
      IllegalTransitionError,
    );
    expect(
      (
        await db
          .selectFrom('signers')
          .select('status')
          .where('id', '=', signerId)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('pending');
  });
});
