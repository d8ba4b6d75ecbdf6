import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/modules/retention/retention.ts';
import {
  address,
  attachPdf,
  sentDocument,
  signingApp,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * Retention: what is no longer needed is purged (idempotency records after 24 h, expired links,
 * a deleted document's files and evidence after DELETED_RETENTION_DAYS), and a mail that failed
 * for good keeps no link or code. (The webhook log's purge is tested with GET /api/v1/events.)
 */

let t: SigningTest;
const DAY = 24 * 3_600_000;
beforeAll(async () => {
  t = await signingApp({ DELETED_RETENTION_DAYS: '10' });
});
afterAll(async () => {
  await t.stop();
});

const db = () => t.database.handle.db;
const exists = async (key: string) =>
  t.app.deps.storage.get(key).then(
    async (s) => {
      for await (const _ of s) break;
      return true;
    },
    () => false,
  );

describe('retention purge', () => {
  it('idempotency records live 24 hours', async () => {
    const key = randomUUID();
    expect(
      (
        await t.request('POST', '/api/v1/documents', {
          body: { name: 'Idem' },
          headers: { 'idempotency-key': key },
        })
      ).status,
    ).toBe(201);
    const rows = () =>
      db().selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
    await purgeExpired(t.app.deps);
    expect(await rows()).toHaveLength(1);
    t.clock.advance(DAY + 1000);
    expect((await purgeExpired(t.app.deps)).idempotency).toBeGreaterThanOrEqual(1);
    expect(await rows()).toHaveLength(0);
  });

  it('expired signing links', async () => {
    const doc = await sentDocument(t, { signers: [{ name: 'Eve', email: address('eve') }] });
    const links = () =>
      db()
        .selectFrom('signing_tokens')
        .select('token_hash')
        .where('document_id', '=', doc.id)
        .execute();
    expect((await links()).length).toBeGreaterThan(0);
    await purgeExpired(t.app.deps);
    expect((await links()).length).toBeGreaterThan(0);
    t.clock.advance(400 * DAY);
    expect((await purgeExpired(t.app.deps)).tokens).toBeGreaterThan(0);
    expect(await links()).toHaveLength(0);
  });

  it('a deleted document: files and evidence erased after DELETED_RETENTION_DAYS, not before', async () => {
    const created = await t.request('POST', '/api/v1/documents', {
      body: { name: 'To forget', signers: [{ name: 'Zed', email: address('zed') }] },
    });
    const id = created.body.data.id;
    await attachPdf(t, id);
    const fileKey = (
      await db()
        .selectFrom('documents')
        .select('file_key')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).file_key!;
    expect(await exists(fileKey)).toBe(true);
    expect((await t.request('DELETE', `/api/v1/documents/${id}`)).status).toBe(204);

    t.clock.advance(9 * DAY);
    await purgeExpired(t.app.deps);
    expect(await exists(fileKey)).toBe(true);
    expect(
      await db().selectFrom('audit_logs').select('id').where('document_id', '=', id).execute(),
    ).not.toHaveLength(0);

    t.clock.advance(2 * DAY);
    expect((await purgeExpired(t.app.deps)).deletedDocuments).toBe(1);
    expect(await exists(fileKey)).toBe(false);
    for (const table of ['signers', 'fields', 'attachments', 'audit_logs'] as const) {
      expect(
        await db().selectFrom(table).select('id').where('document_id', '=', id).execute(),
      ).toHaveLength(0);
    }
    expect(
      await db().selectFrom('documents').select('id').where('id', '=', id).execute(),
    ).toHaveLength(0);
    // A second pass finds nothing more to do.
    expect((await purgeExpired(t.app.deps)).deletedDocuments).toBe(0);
  });
});

describe('mail jobs keep no body', () => {
  it('a mail that failed for good keeps who and what, not its signing link', async () => {
    const bad = `bounce-${address('gone')}`;
    await sentDocument(t, { signers: [{ name: 'Gone', email: bad }] });
    const failed = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'mail')
      .where('status', '=', 'failed')
      .where('payload', 'like', `%${bad}%`)
      .execute();
    expect(failed).toHaveLength(1);
    const payload = JSON.parse(failed[0].payload);
    expect(payload).toMatchObject({ to: bad, text: '', bodyDropped: true });
    expect(failed[0].payload).not.toContain('/sign/');
    // Sent mails leave no job behind at all.
    expect(
      await db()
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'mail')
        .where('status', '!=', 'failed')
        .execute(),
    ).toHaveLength(0);
  });
});
