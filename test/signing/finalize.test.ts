import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeDocument } from '../../src/modules/documents/finalize.service.ts';
import {
  address,
  auditActions,
  eventTypes,
  latestToken,
  PNG_DATA_URL,
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

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function storedBytes(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await t.app.deps.storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function signedKey(id: string): Promise<string | null> {
  const row = await t.database.handle.db
    .selectFrom('documents')
    .select('signed_file_key')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.signed_file_key;
}

/** A parallel document with two signers and a cc, everyone signed; the finalize job is queued but not run. */
async function allSigned() {
  const a = address('fa');
  const b = address('fb');
  const c = address('fc');
  const doc = await sentDocument(t, {
    signers: [
      { name: 'Ada', email: a },
      { name: 'Bea', email: b, role: 'approver' },
      { name: 'Cid', email: c, role: 'cc' },
    ],
    fields: [
      {
        type: 'signature',
        page: 1,
        x: 10,
        y: 70,
        width: 30,
        height: 8,
        required: true,
        assignedTo: 0,
      },
      { type: 'date', page: 1, x: 10, y: 80, width: 20, height: 4, required: true, assignedTo: 0 },
      {
        type: 'initials',
        page: 2,
        x: 60,
        y: 80,
        width: 10,
        height: 5,
        required: true,
        assignedTo: 1,
      },
      {
        type: 'checkbox',
        page: 2,
        x: 60,
        y: 90,
        width: 4,
        height: 3,
        required: false,
        assignedTo: 1,
      },
    ],
    body: { signingType: 'parallel' },
  });
  const dateField = doc.fields.find((f) => f.type === 'date')!.id;
  const box = doc.fields.find((f) => f.type === 'checkbox')!.id;
  const r1 = await t.request('POST', `/api/v1/signing/${latestToken(t, a)}/complete`, {
    key: null,
    body: {
      values: { [dateField]: '2026-11-21' },
      signature: { kind: 'drawn', value: PNG_DATA_URL },
    },
    headers: { 'user-agent': 'AdaBrowser/1.0' },
  });
  expect(r1.status).toBe(200);
  const r2 = await t.request('POST', `/api/v1/signing/${latestToken(t, b)}/complete`, {
    key: null,
    body: { values: { [box]: 'true' }, signature: typed('BB') },
  });
  expect(r2.body.data.allSigned).toBe(true);
  return { doc, emails: [a, b, c] };
}

describe('finalize job', () => {
  it('produces the signed PDF, then completes the document and mails everyone the signed copy', async () => {
    const { doc, emails } = await allSigned();
    // Until the signed file exists the document is not completed.
    const before = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(before.status).toBe('pending');
    expect(before.signedFileHash).toBe('');

    await t.settle();
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('completed');
    expect(detail.completedAt).not.toBeNull();
    const key = (await signedKey(doc.id))!;
    const bytes = await storedBytes(key);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(detail.signedFileHash).toBe(sha256(bytes));
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes.toString('latin1')).toContain('/ByteRange');

    for (const email of emails) {
      const mail = t.sink.to(email).at(-1)!;
      expect(mail.subject).toContain('signed by everyone');
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0].filename).toBe('Service agreement - Signed.pdf');
      expect(mail.attachments[0].contentType).toBe('application/pdf');
      expect(sha256(mail.attachments[0].content)).toBe(detail.signedFileHash);
    }
    expect(await auditActions(t, doc.id)).toContain('document.completed');
    expect(await eventTypes(t)).toContain('document.completed');
    // Every link is dead now.
    const res = await t.request('GET', `/api/v1/signing/${latestToken(t, emails[0])}`, {
      key: null,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe('This document is already completed');
  });

  it('is idempotent: running twice (or concurrently) completes once, with one file and one set of mails', async () => {
    const { doc, emails } = await allSigned();
    const mailsBefore = t.sink.to(emails[2]).length;
    await Promise.all([finalizeDocument(t.app.deps, doc.id), finalizeDocument(t.app.deps, doc.id)]);
    await finalizeDocument(t.app.deps, doc.id);
    await t.settle(); // the queued job runs too and finds nothing to do
    const actions = await auditActions(t, doc.id);
    expect(actions.filter((a) => a === 'document.completed')).toHaveLength(1);
    const key = (await signedKey(doc.id))!;
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(sha256(await storedBytes(key))).toBe(detail.signedFileHash);
    expect(t.sink.to(emails[2]).length).toBe(mailsBefore + 1);
  });

  it('two last signers completing at the same moment queue exactly one finalize', async () => {
    const emails = [address('race-a'), address('race-b')];
    const doc = await sentDocument(t, {
      signers: emails.map((email, i) => ({ name: `R${i}`, email })),
      body: { signingType: 'parallel' },
    });
    const results = await Promise.all(
      emails.map((email) =>
        t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
          key: null,
          body: { signature: typed() },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results.filter((r) => r.body.data.allSigned)).toHaveLength(1);
    const jobs = await t.database.handle.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'finalize')
      .execute();
    expect(jobs.filter((j) => JSON.parse(j.payload).documentId === doc.id)).toHaveLength(1);
    await t.settle();
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'completed',
    );
  });

  it('does nothing for a document cancelled after the last signature', async () => {
    const { doc } = await allSigned();
    expect((await t.request('POST', `/api/v1/documents/${doc.id}/cancel`)).status).toBe(200);
    await t.settle();
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('cancelled');
    expect(detail.signedFileHash).toBe('');
    expect(await signedKey(doc.id)).toBeNull();
  });
});

describe('large signed files', () => {
  it('are sent as a download link instead of an attachment', async () => {
    const small = await signingApp({ MAIL_ATTACHMENT_MAX_BYTES: '1000' });
    try {
      const email = address('big');
      await sentDocument(small, { signers: [{ name: 'Big', email }] });
      const res = await small.request(
        'POST',
        `/api/v1/signing/${latestToken(small, email)}/complete`,
        { key: null, body: { signature: typed('Big') } },
      );
      expect(res.status).toBe(200);
      await small.settle();
      const mail = small.sink.to(email).at(-1)!;
      expect(mail.attachments).toHaveLength(0);
      const link = /(http:\/\/localhost:3000\/api\/v1\/signing\/([A-Za-z0-9_-]{43})\/file)/.exec(
        mail.text,
      );
      expect(link).not.toBeNull();
      const download = await small.request('GET', `/api/v1/signing/${link![2]}/file`, {
        key: null,
      });
      expect(download.status).toBe(200);
      const detail = (await small.request('GET', `/api/v1/documents/${res.body.data.documentId}`))
        .body.data;
      expect(sha256(download.raw.rawPayload)).toBe(detail.signedFileHash);
      expect(download.headers['content-disposition']).toContain('Signed.pdf');
      // A download link opens nothing else.
      expect(
        (await small.request('GET', `/api/v1/signing/${link![2]}`, { key: null })).status,
      ).toBe(403);
    } finally {
      await small.stop();
    }
  });
});
