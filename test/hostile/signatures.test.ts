import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createCampaign } from '../campaigns/setup.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  type SigningTest,
} from '../signing/setup.ts';
import { dataUrl, pngBomb } from './bombs.ts';

/*
 * Drawn signatures: the PNG header is read before anything decodes it (4 megapixels at most), and
 * an accepted signature is re-encoded once, at submission, so sealing only meets images Signet wrote.
 */

let t: SigningTest;
let bomb: string;
beforeAll(async () => {
  t = await signingApp();
  bomb = dataUrl(await pngBomb(20_000, 20_000));
});
afterAll(async () => t.stop());

const drawn = (value: string) => ({ kind: 'drawn', value });

describe('drawn signatures', () => {
  it('refuses a PNG declaring 20000×20000 pixels with 400, from its header, and the signer can still sign', async () => {
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const email = address('bomb');
    const doc = await sentDocument(t, { signers: [{ name: 'Bomb', email }] });
    const token = latestToken(t, email);
    const started = Date.now();
    const res = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { signature: drawn(bomb) },
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'body.signature.value' }],
    });
    expect(res.body.error.message).toMatch(/20000×20000 pixels; at most 4 megapixels/);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('pending');
  });

  it('stores an accepted drawn signature as the small PNG Signet made of it (trimmed, at most 1200×400)', async () => {
    // 3000×1000 with ink in the middle: within the budget, larger than what is kept.
    const width = 3000;
    const height = 1000;
    const pixels = Buffer.alloc(width * height * 4);
    for (let x = 500; x < 2500; x++)
      for (let y = 400; y < 600; y++) pixels.writeUInt32BE(0x102060ff, (y * width + x) * 4);
    const submitted = dataUrl(
      await sharp(pixels, { raw: { width, height, channels: 4 } })
        .png()
        .toBuffer(),
    );
    const email = address('ink');
    const doc = await sentDocument(t, { signers: [{ name: 'Ink', email }] });
    const res = await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
      key: null,
      body: { signature: drawn(submitted) },
    });
    expect(res.status).toBe(200);
    const field = await t.database.handle.db
      .selectFrom('fields')
      .select('value')
      .where('document_id', '=', doc.id)
      .executeTakeFirstOrThrow();
    expect(field.value).not.toBe(submitted);
    const stored = Buffer.from(field.value!.replace(/^data:image\/png;base64,/, ''), 'base64');
    const meta = await sharp(stored).metadata();
    expect(meta.format).toBe('png');
    // Trimmed to the ink (2000×200), then scaled into 1200×400.
    expect([meta.width, meta.height]).toEqual([1200, 120]);
    await t.settle();
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'completed',
    );
  });

  it('refuses the bomb through an anonymous campaign submission before a slot is taken', async () => {
    const campaign = await createCampaign(t, { maxSubmissions: 5, collectPhone: false });
    const page = (
      await t.request('GET', `/api/v1/public/campaigns/${campaign.slug}`, { key: null })
    ).body.data;
    const res = await t.request('POST', `/api/v1/public/campaigns/${campaign.slug}/submissions`, {
      key: null,
      body: { name: 'Anon', email: address('anon'), signature: drawn(bomb) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'body.signature.value', message: expect.stringMatching(/at most 4 megapixels/) },
      ]),
    );
    expect(page).toBeDefined();
    const after = (await t.request('GET', `/api/v1/campaigns/${campaign.id}`)).body.data;
    expect(after.submissionCount).toBe(0);
  });
});
