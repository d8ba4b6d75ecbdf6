import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAMPAIGN_STATUSES,
  DOCUMENT_STATUSES,
  SIGNER_STATUSES,
  WEBHOOK_STATUSES,
} from '../../src/db/database.ts';
import {
  BULK_SEND_STATUSES,
  BULK_SEND_TRANSITIONS,
  cancelBulkSendRows,
  completeIfDone,
} from '../../src/modules/bulk-sends/bulk-send-status.ts';
import { CAMPAIGN_TRANSITIONS } from '../../src/modules/campaigns/campaign-status.ts';
import {
  DOCUMENT_TRANSITIONS,
  moveDocument,
} from '../../src/modules/documents-core/document-status.ts';
import { moveSigner, SIGNER_TRANSITIONS } from '../../src/modules/documents-core/signer-status.ts';
import {
  DELIVERY_STATUSES,
  DELIVERY_TRANSITIONS,
  requeueDelivery,
  settleDelivery,
} from '../../src/modules/webhooks/delivery-status.ts';
import { WEBHOOK_TRANSITIONS } from '../../src/modules/webhooks/webhook-status.ts';
import { checkTransition, IllegalTransitionError } from '../../src/state-machine.ts';
import { newId } from '../../src/ids.ts';
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
      [DELIVERY_STATUSES, DELIVERY_TRANSITIONS],
      [BULK_SEND_STATUSES, BULK_SEND_TRANSITIONS],
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

  it('a delivery: cancelled is final, a retry comes only from an ended attempt', async () => {
    expect(DELIVERY_TRANSITIONS.cancelled).toEqual([]);
    expect(() =>
      checkTransition('delivery', DELIVERY_TRANSITIONS, ['cancelled'], 'pending'),
    ).toThrow('A delivery cannot move from cancelled to pending');
    const db = t.database.handle.db;
    const now = new Date().toISOString();
    const delivery = async (status: string) => {
      const id = newId('dlv');
      await db
        .insertInto('webhook_deliveries')
        .values({
          id,
          org_id: t.orgId,
          webhook_id: newId('whk'),
          event_id: newId('evt'),
          event_type: 'document.completed',
          status,
          attempt_count: 1,
          next_attempt_at: null,
          leased_until: now,
          last_status_code: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return id;
    };
    const statusOfDelivery = async (id: string) =>
      (
        await db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;

    const cancelled = await delivery('cancelled');
    expect(await requeueDelivery(db, cancelled, now)).toBe(false);
    expect(
      await settleDelivery(db, { id: cancelled, leased_until: now }, { status: 'failed' }),
    ).toBe(false);
    expect(await statusOfDelivery(cancelled)).toBe('cancelled');

    const failed = await delivery('failed');
    expect(await requeueDelivery(db, failed, now)).toBe(true);
    expect(await statusOfDelivery(failed)).toBe('pending');
    expect(
      await settleDelivery(db, { id: failed, leased_until: now }, { status: 'succeeded' }),
    ).toBe(true);
    expect(await statusOfDelivery(failed)).toBe('succeeded');
  });

  it('a bulk send: completed and cancelled are final, and a final one is neither cancelled nor completed again', async () => {
    for (const done of ['completed', 'cancelled'] as const)
      expect(BULK_SEND_TRANSITIONS[done]).toEqual([]);
    expect(() =>
      checkTransition('bulk send', BULK_SEND_TRANSITIONS, ['completed'], 'cancelled'),
    ).toThrow('A bulk send cannot move from completed to cancelled');
    expect(() =>
      checkTransition('bulk send', BULK_SEND_TRANSITIONS, ['processing'], 'queued'),
    ).toThrow(IllegalTransitionError);
    const db = t.database.handle.db;
    const now = new Date().toISOString();
    const id = newId('bsd');
    await db
      .insertInto('bulk_sends')
      .values({
        id,
        org_id: t.orgId,
        template_id: newId('tpl'),
        name: 'transitions',
        status: 'queued',
        total: 0,
        sent: 0,
        failed: 0,
        settings: '{}',
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();
    const bulkStatus = async () =>
      (
        await db
          .selectFrom('bulk_sends')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await completeIfDone(db, id, now)).toBe(true);
    expect(await bulkStatus()).toBe('completed');
    expect(await cancelBulkSendRows(db, id, now)).toBe(false);
    expect(await completeIfDone(db, id, now)).toBe(false);
    expect(await bulkStatus()).toBe('completed');
  });
});
