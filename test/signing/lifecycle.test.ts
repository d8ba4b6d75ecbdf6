import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchedulers } from '../../src/jobs/schedulers.ts';
import { onSignerCorrected } from '../../src/modules/signing/signing-flow.ts';
import { UNKNOWN_ACTOR } from '../../src/modules/audit/audit.ts';
import {
  address,
  auditActions,
  eventTypes,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const statusOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}`)).body.data.status as string;
const complete = (token: string) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { signature: typed() },
  });

/** 1×1 PNG bytes, as an ID photo. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const uploadId = (token: string, body: Buffer, contentType = 'image/png') =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/signing/${token}/identity`,
    payload: body,
    headers: { 'content-type': contentType },
  });

describe('expiry (scheduler)', () => {
  it('expires an open document once expiresAt passes, notifies the signers and refuses its links', async () => {
    const a = address('exp-a');
    const b = address('exp-b');
    const expiresAt = new Date(t.clock.now().getTime() + HOUR).toISOString();
    const doc = await sentDocument(t, {
      signers: [
        { name: 'A', email: a },
        { name: 'B', email: b },
      ],
      body: { expiresAt },
    });
    expect((await complete(latestToken(t, a))).status).toBe(200);
    expect((await runSchedulers(t.app.deps)).expired).toBe(0);

    t.clock.advance(HOUR + 1000);
    const first = await runSchedulers(t.app.deps);
    expect(first.expired).toBeGreaterThanOrEqual(1);
    // A second pass (or a second instance) finds nothing left to expire for this document.
    await runSchedulers(t.app.deps);
    await t.settle();

    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('expired');
    expect(detail.signers.map((s: any) => s.status)).toEqual(['completed', 'cancelled']);
    expect((await auditActions(t, doc.id)).filter((x) => x === 'document.expired')).toHaveLength(1);
    expect(await eventTypes(t)).toContain('document.expired');
    expect(t.sink.to(b).filter((m) => m.subject.includes('has expired'))).toHaveLength(1);
    expect(t.sink.to(a).filter((m) => m.subject.includes('has expired'))).toHaveLength(1);
    const res = await t.request('GET', `/api/v1/signing/${latestToken(t, b)}`, { key: null });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe('This document has expired');
  });
});

describe('reminders (scheduler)', () => {
  it('reminds the signer whose turn it is, once per period, until they act', async () => {
    const a = address('rem-a');
    const b = address('rem-b');
    const w = address('rem-w');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'A', email: a },
        { name: 'B', email: b },
      ],
      body: { reminderFrequency: 'daily' },
    });
    await sentDocument(t, {
      signers: [{ name: 'W', email: w }],
      body: { reminderFrequency: 'weekly' },
    });
    const reminders = (email: string) =>
      t.sink.to(email).filter((m) => m.subject.startsWith('Reminder'));

    await runSchedulers(t.app.deps);
    await t.settle();
    expect(reminders(a)).toHaveLength(0);

    t.clock.advance(DAY + 60_000);
    await runSchedulers(t.app.deps);
    await runSchedulers(t.app.deps);
    await t.settle();
    expect(reminders(a)).toHaveLength(1);
    expect(reminders(b)).toHaveLength(0); // not their turn yet
    expect(reminders(w)).toHaveLength(0); // weekly
    // The reminder carries a working link.
    expect(
      (await t.request('GET', `/api/v1/signing/${latestToken(t, a)}`, { key: null })).status,
    ).toBe(200);
    expect(await auditActions(t, doc.id)).toContain('signer.reminded');

    t.clock.advance(DAY + 60_000);
    await runSchedulers(t.app.deps);
    await t.settle();
    expect(reminders(a)).toHaveLength(2);

    expect((await complete(latestToken(t, a))).status).toBe(200);
    await t.settle();
    t.clock.advance(DAY + 60_000);
    await runSchedulers(t.app.deps);
    await t.settle();
    expect(reminders(a)).toHaveLength(2);
    expect(reminders(b)).toHaveLength(1); // B's turn began with the "your turn" mail a day ago
  });
});

describe('action_required: undeliverable invitation', () => {
  it('a bounced invitation makes the document action_required; correcting the address resumes it', async () => {
    const bad = `bounce-${address('x')}`;
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Bounced', email: bad },
        { name: 'Fine', email: address('fine') },
      ],
      body: { signingType: 'parallel' },
    });
    expect(t.sink.rejected).toContain(bad);
    expect(await statusOf(doc.id)).toBe('action_required');
    expect(await eventTypes(t)).toContain('document.action_required');
    expect(await auditActions(t, doc.id)).toEqual(
      expect.arrayContaining(['signer.invitation_failed', 'document.action_required']),
    );
    const admin = t.sink
      .to('admin@acme.test')
      .filter((m) => m.subject.startsWith('Action required'));
    expect(admin.at(-1)!.text).toContain(bad);
    const why = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.actionRequired;
    expect(why).toMatchObject({ reason: 'invitation_undeliverable', signerId: doc.signers[0].id });
    expect(why.message).toContain(bad);
    // Other signers can still sign meanwhile; the document stays open for cancel.
    expect((await complete(latestToken(t, doc.signers[1].email))).status).toBe(200);

    // The sender corrects the address (the signers module calls onSignerCorrected in its PATCH).
    const db = t.database.handle.db;
    const link = await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('documents')
        .selectAll()
        .where('id', '=', doc.id)
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('signers')
        .set({ email: 'fixed@example.test' })
        .where('id', '=', doc.signers[0].id)
        .execute();
      const signer = await trx
        .selectFrom('signers')
        .selectAll()
        .where('id', '=', doc.signers[0].id)
        .executeTakeFirstOrThrow();
      return onSignerCorrected(trx, t.app.deps, {
        doc: row,
        signer,
        emailChanged: true,
        meta: UNKNOWN_ACTOR,
      });
    });
    expect(await statusOf(doc.id)).toBe('pending');
    expect(
      (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.actionRequired,
    ).toBeNull();
    expect(await auditActions(t, doc.id)).toContain('document.resumed');
    const token = link!.split('/sign/')[1];
    expect((await complete(token)).status).toBe(200);
    await t.settle();
    expect(await statusOf(doc.id)).toBe('completed');
  });
});

describe('action_required: identity evidence (requireKyc)', () => {
  it('upload → action_required → reject → upload again → approve → pending → complete', async () => {
    const email = address('kyc');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Kay', email }],
      body: { requireKyc: true },
    });
    const token = latestToken(t, email);
    const session = (await t.request('GET', `/api/v1/signing/${token}`, { key: null })).body.data;
    expect(session.verification).toEqual({ required: true, status: 'required' });
    const early = await complete(token);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('verification_required');

    expect((await uploadId(token, PNG, 'image/jpeg')).statusCode).toBe(415);
    expect((await uploadId(token, Buffer.from('hello'), 'text/plain')).statusCode).toBe(415);
    const verify = (decision: string, reason?: string) =>
      t.request('POST', `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/verification`, {
        body: { decision, ...(reason ? { reason } : {}) },
      });
    expect((await verify('approve')).status).toBe(409); // nothing to review yet

    const up = await uploadId(token, PNG);
    expect(up.statusCode).toBe(200);
    expect(up.json().data).toMatchObject({
      verification: 'pending',
      documentStatus: 'action_required',
    });
    expect(await statusOf(doc.id)).toBe('action_required');
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.attachments).toHaveLength(1);
    expect(detail.actionRequired).toMatchObject({
      reason: 'identity_review',
      signerId: doc.signers[0].id,
    });
    expect(detail.actionRequired.message).toContain('Kay');
    expect(detail.attachments[0]).toMatchObject({ contentType: 'image/png', fileSize: PNG.length });
    expect((await complete(token)).body.error.code).toBe('verification_required');

    const rejected = await verify('reject', 'The photo is blurry');
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toEqual({
      documentId: doc.id,
      signerId: doc.signers[0].id,
      verification: 'rejected',
      documentStatus: 'pending',
    });
    await t.settle();
    const rejectMail = t.sink.to(email).at(-1)!;
    expect(rejectMail.text).toContain('The photo is blurry');
    const retryToken = latestToken(t, email);
    expect(
      (await t.request('GET', `/api/v1/signing/${retryToken}`, { key: null })).body.data
        .verification.status,
    ).toBe('rejected');

    expect((await uploadId(retryToken, PNG)).statusCode).toBe(200);
    expect(await statusOf(doc.id)).toBe('action_required');
    const approved = await verify('approve');
    expect(approved.body.data).toMatchObject({
      verification: 'approved',
      documentStatus: 'pending',
    });
    expect((await uploadId(token, PNG)).statusCode).toBe(409); // approved evidence is final
    expect(
      (
        await t.request(
          'POST',
          `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/verification`,
          { body: { decision: 'maybe' } },
        )
      ).status,
    ).toBe(400);

    expect((await complete(token)).status).toBe(200);
    expect(await auditActions(t, doc.id)).toEqual(
      expect.arrayContaining([
        'signer.identity_submitted',
        'signer.identity_rejected',
        'signer.identity_approved',
        'document.action_required',
        'document.resumed',
      ]),
    );
  });
});

describe('every document status is reachable', () => {
  it('draft, pending, action_required, completed, cancelled, expired and declined', async () => {
    const seen = new Set<string>();
    const draft = await t.request('POST', '/api/v1/documents', { body: { name: 'Only a draft' } });
    seen.add(draft.body.data.status);
    const pending = await sentDocument(t, { signers: [{ name: 'P', email: address('st-p') }] });
    seen.add(await statusOf(pending.id));
    const cancelled = await sentDocument(t, { signers: [{ name: 'C', email: address('st-c') }] });
    seen.add(
      (await t.request('POST', `/api/v1/documents/${cancelled.id}/cancel`)).body.data.status,
    );
    const declinedEmail = address('st-d');
    const declined = await sentDocument(t, { signers: [{ name: 'D', email: declinedEmail }] });
    await t.request('POST', `/api/v1/signing/${latestToken(t, declinedEmail)}/decline`, {
      key: null,
      body: { reason: 'No' },
    });
    seen.add(await statusOf(declined.id));
    const bounced = await sentDocument(t, {
      signers: [{ name: 'B', email: `bounce-${address('st-b')}` }],
    });
    seen.add(await statusOf(bounced.id));
    const doneEmail = address('st-done');
    const done = await sentDocument(t, { signers: [{ name: 'Done', email: doneEmail }] });
    await complete(latestToken(t, doneEmail));
    await t.settle();
    seen.add(await statusOf(done.id));
    const expiring = await sentDocument(t, {
      signers: [{ name: 'E', email: address('st-e') }],
      body: { expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString() },
    });
    t.clock.advance(61_000);
    await runSchedulers(t.app.deps);
    seen.add(await statusOf(expiring.id));
    expect([...seen].sort()).toEqual([
      'action_required',
      'cancelled',
      'completed',
      'declined',
      'draft',
      'expired',
      'pending',
    ]);
  });
});
