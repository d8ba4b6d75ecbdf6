import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/modules/retention/retention.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';
import { createCampaign } from './setup.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
const HOUR = 3_600_000;

/** A campaign whose visitor signs and attaches a required "Proof of address"; returns it with its public field ids. */
async function fileCampaign(extra: Record<string, unknown> = {}) {
  const tpl = await createTemplate(t, {
    name: 'Tenancy application',
    roles: [{ name: 'Applicant' }],
    fields: [
      field({ type: 'file', label: 'Proof of address', x: 10, y: 20, width: 50, height: 4 }),
      field({ type: 'text', label: 'City', x: 10, y: 30, width: 40, height: 3 }),
      field({ type: 'signature', label: 'Signature', x: 10, y: 60, width: 35, height: 7 }),
    ],
  });
  await giveTemplateFile(t, tpl);
  const c = await createCampaign(t, {
    templateId: tpl,
    name: 'Tenancy',
    collectPhone: false,
    ...extra,
  });
  const pub = (await t.request('GET', `/api/v1/public/campaigns/${c.slug}`, { key: null })).body
    .data;
  const id = (label: string) =>
    pub.fields.find((f: { label: string }) => f.label === label).id as string;
  return { c, file: id('Proof of address'), city: id('City'), signature: id('Signature') };
}

async function put(
  slug: string,
  fieldId: string,
  body: Buffer,
  contentType: string,
  filename?: string,
) {
  const q = filename ? `?filename=${encodeURIComponent(filename)}` : '';
  const raw = await t.app.inject({
    method: 'PUT',
    url: `/api/v1/public/campaigns/${slug}/fields/${fieldId}/file${q}`,
    headers: { 'content-type': contentType },
    payload: body,
  });
  return { status: raw.statusCode, body: raw.json() };
}

const submit = (slug: string, values: Record<string, unknown>, email = 'ann@example.test') =>
  t.request('POST', `/api/v1/public/campaigns/${slug}/submissions`, {
    key: null,
    body: {
      name: 'Ann Applicant',
      email,
      values,
      signature: { kind: 'typed', value: 'Ann Applicant' },
    },
  });

describe('PUT /api/v1/public/campaigns/{slug}/fields/{fieldId}/file', () => {
  it('a campaign with a required file field is accepted; the submitted file becomes the attachment, with its SHA-256 in the detail and the audit trail', async () => {
    const { c, file, city } = await fileCampaign();
    const pdf = await samplePdf(1, 'Utility bill');
    const first = await put(c.slug, file, PNG, 'image/png', 'first.png');
    expect(first.status).toBe(200);
    // Choosing again gives a new id; the submission names the one it keeps.
    const second = await put(c.slug, file, pdf, 'application/pdf', 'Rechnung März.pdf');
    expect(second.status).toBe(200);
    expect(second.body.data.attachmentId).toMatch(/^att_/);

    const res = await submit(c.slug, { [file]: second.body.data.attachmentId, [city]: 'Leeds' });
    expect(res.status).toBe(201);
    const doc = (await t.request('GET', `/api/v1/documents/${res.body.data.id}`)).body.data;
    const docFileField = doc.fields.find((f: { label: string }) => f.label === 'Proof of address');
    expect(doc._count.attachments).toBe(1);
    expect(doc.attachments).toEqual([
      expect.objectContaining({
        id: second.body.data.attachmentId,
        name: 'Rechnung März.pdf',
        contentType: 'application/pdf',
        fileSize: pdf.length,
        sha256: sha(pdf),
        kind: 'signer_upload',
        signerId: doc.signers[0].id,
        fieldId: docFileField.id,
      }),
    ]);
    expect(docFileField.value).toBe(second.body.data.attachmentId);
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/attachments/${second.body.data.attachmentId}`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(download.statusCode).toBe(200);
    expect(sha(download.rawPayload)).toBe(sha(pdf));
    const audit = (await t.request('GET', `/api/v1/documents/${doc.id}/audit`)).body;
    expect(JSON.stringify(audit)).toContain(sha(pdf));

    // The same upload cannot be submitted twice.
    const again = await submit(
      c.slug,
      { [file]: second.body.data.attachmentId, [city]: 'York' },
      'bob@example.test',
    );
    expect(again.status).toBe(400);
    expect(again.body.error.details[0].path).toBe(`body.values.${file}`);
  });

  it('requires the upload of a required file field, and only an upload made for that field of that form', async () => {
    const { c, file, city } = await fileCampaign();
    const other = await fileCampaign();
    const missing = await submit(c.slug, { [city]: 'Leeds' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d: { path: string }) => d.path)).toContain(
      `body.values.${file}`,
    );
    const elsewhere = await put(other.c.slug, other.file, PNG, 'image/png');
    const wrong = await submit(c.slug, {
      [file]: elsewhere.body.data.attachmentId,
      [city]: 'Leeds',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe(`body.values.${file}`);
    // Nothing was created by the refused submissions.
    expect(
      (await t.request('GET', `/api/v1/campaigns/${c.id}/submissions`)).body.data,
    ).toHaveLength(0);
  });

  it('refuses a wrong type, bytes that are not the declared type, over 10 MB, a field that is not a file field, an unknown field or form', async () => {
    const { c, file, city } = await fileCampaign();
    expect((await put(c.slug, file, PNG, 'text/plain')).status).toBe(415);
    expect((await put(c.slug, file, PNG, 'application/pdf')).status).toBe(415);
    expect((await put(c.slug, file, Buffer.from('not a png at all'), 'image/png')).status).toBe(
      415,
    );
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    expect((await put(c.slug, file, big, 'image/png')).status).toBe(413);
    expect((await put(c.slug, city, PNG, 'image/png')).status).toBe(409);
    expect((await put(c.slug, 'fld_unknown', PNG, 'image/png')).status).toBe(404);
    expect((await put('no-such-form', file, PNG, 'image/png')).status).toBe(404);
    // Nothing refused was kept.
    expect(
      await t.app.deps.db
        .selectFrom('campaign_uploads')
        .selectAll()
        .where('campaign_id', '=', c.id)
        .execute(),
    ).toEqual([]);
  });

  it('a paused form takes no upload; an identity-verifying form takes files on the signing page', async () => {
    const { c, file } = await fileCampaign();
    expect(
      (await t.request('PATCH', `/api/v1/campaigns/${c.id}`, { body: { status: 'paused' } }))
        .status,
    ).toBe(200);
    expect((await put(c.slug, file, PNG, 'image/png')).status).toBe(409);
    const kyc = await fileCampaign({ requireKyc: true });
    const res = await put(kyc.c.slug, kyc.file, PNG, 'image/png');
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/signing page/);
  });

  it('an upload no submission took is deleted, file and all, after 24 hours', async () => {
    const { c, file } = await fileCampaign();
    const up = await put(c.slug, file, PNG, 'image/png');
    const row = await t.app.deps.db
      .selectFrom('campaign_uploads')
      .selectAll()
      .where('id', '=', up.body.data.attachmentId)
      .executeTakeFirstOrThrow();
    t.clock.advance(23 * HOUR);
    expect((await purgeExpired(t.app.deps)).campaignUploads).toBe(0);
    t.clock.advance(2 * HOUR);
    // This one and the ones the earlier tests left unsubmitted.
    expect((await purgeExpired(t.app.deps)).campaignUploads).toBeGreaterThanOrEqual(1);
    expect(
      await t.app.deps.db
        .selectFrom('campaign_uploads')
        .selectAll()
        .where('id', '=', row.id)
        .execute(),
    ).toEqual([]);
    await expect(
      t.app.deps.storage.get(row.file_key).then(async (s) => {
        for await (const _ of s) break;
      }),
    ).rejects.toBeTruthy();
    expect((await submit(c.slug, { [file]: row.id })).status).toBe(400);
  });
});
