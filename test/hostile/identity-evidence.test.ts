import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  type SigningTest,
} from '../signing/setup.ts';
import { pngBomb } from './bombs.ts';

/*
 * Identity evidence from an outsider holding a signing link (anonymous with a `requireKyc`
 * campaign): a pixel budget read from the header, a bounded number of uploads between two
 * reviews, an upload replacing the evidence still awaiting review, one admin mail per review.
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp({ IDENTITY_MAX_ATTEMPTS: '3' });
});
afterAll(async () => t.stop());

const ADMIN = 'admin@acme.test';
const upload = (token: string, body: Buffer, contentType = 'image/png') =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/signing/${token}/identity`,
    payload: body,
    headers: { 'content-type': contentType },
  });
const photo = (shade: number) =>
  sharp({ create: { width: 64, height: 40, channels: 3, background: { r: shade, g: 90, b: 120 } } })
    .png()
    .toBuffer();
const attachmentsOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}`)).body.data.attachments as Array<{
    id: string;
    sha256: string;
  }>;
const storedKeys = async (id: string) =>
  (
    await t.database.handle.db
      .selectFrom('attachments')
      .select('file_key')
      .where('document_id', '=', id)
      .execute()
  ).map((r) => r.file_key);

describe('identity evidence from a signing link', () => {
  it('refuses a photo over 25 megapixels from its header (413), storing nothing', async () => {
    const email = address('bomb');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Bomb', email }],
      body: { requireKyc: true },
    });
    const bomb = await pngBomb(20_000, 20_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    const res = await upload(latestToken(t, email), bomb);
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'payload_too_large' });
    expect(res.json().error.message).toMatch(/20000×20000 pixels; at most 25 megapixels/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await attachmentsOf(doc.id)).toEqual([]);
  });

  it('replaces evidence awaiting review, mails the admin once per review, and stops after IDENTITY_MAX_ATTEMPTS uploads', async () => {
    const email = address('kyc');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Kay', email }],
      body: { requireKyc: true },
    });
    const token = latestToken(t, email);
    await t.settle();
    const adminMails = () => t.sink.to(ADMIN).filter((m) => m.text.includes(doc.id)).length;

    const first = await upload(token, await photo(10));
    expect(first.statusCode).toBe(200);
    const second = await upload(token, await photo(20));
    expect(second.statusCode).toBe(200);
    const third = await upload(token, await photo(30));
    expect(third.statusCode).toBe(200);
    // Only the newest evidence is kept: one row, one file in storage.
    const kept = await attachmentsOf(doc.id);
    expect(kept.map((a) => a.id)).toEqual([third.json().data.attachmentId]);
    const keys = await storedKeys(doc.id);
    expect(keys).toHaveLength(1);
    for (const gone of [first, second]) {
      const id = gone.json().data.attachmentId as string;
      await expect(
        t.app.deps.storage.stat(`documents/${doc.id}/attachments/${id}.png`),
      ).resolves.toBeNull();
    }
    await t.settle();
    expect(adminMails()).toBe(1);

    // The fourth upload before a review is refused (from the token, before the body is read).
    const fourth = await upload(token, await photo(40));
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json().error.message).toMatch(
      /sent identity evidence 3 times; the sender must review it/,
    );
    expect(await attachmentsOf(doc.id)).toHaveLength(1);

    // The sender's review gives the signer new attempts, and a new review a new mail.
    const review = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/verification`,
      { body: { decision: 'reject', reason: 'Blurry' } },
    );
    expect(review.status).toBe(200);
    const retry = latestToken(t, email);
    expect((await upload(retry, await photo(50))).statusCode).toBe(200);
    await t.settle();
    expect(adminMails()).toBe(2);
    // The rejected evidence stays as the record of that review; the new one sits beside it.
    expect(await attachmentsOf(doc.id)).toHaveLength(2);
  });
});
