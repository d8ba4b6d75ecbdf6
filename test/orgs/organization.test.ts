import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
let png: Buffer;
beforeAll(async () => {
  t = await buildTestApp();
  png = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#0F766E' } })
    .png()
    .toBuffer();
});
afterAll(async () => t.close());

const dataUrl = (type: string, bytes: Buffer) =>
  `data:image/${type};base64,${bytes.toString('base64')}`;

describe('GET /api/v1/organization', () => {
  it('returns the organization of the key, without branding at first', async () => {
    const res = await t.request('GET', '/api/v1/organization');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: t.orgId,
      name: 'Acme',
      adminEmail: 'admin@acme.test',
      brandColor: null,
      logoUrl: null,
      replyTo: null,
      embedOrigins: [],
      defaultLocale: 'en',
      timeZone: 'UTC',
      requireConsent: false,
      consentText: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('needs organization.read; another organization sees its own', async () => {
    const key = await t.keyWith(['documents.read']);
    const res = await t.request('GET', '/api/v1/organization', { key });
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body.error.details)).toContain('organization.read');
    const other = await t.newOrg('Globex');
    expect(
      (await t.request('GET', '/api/v1/organization', { key: other.key })).body.data,
    ).toMatchObject({ id: other.orgId, name: 'Globex' });
  });
});

describe('PATCH /api/v1/organization', () => {
  it('renames the organization and sets colour, logo and reply-to; null clears them', async () => {
    const { orgId, key } = await t.newOrg('Default');
    const res = await t.request('PATCH', '/api/v1/organization', {
      key,
      body: {
        name: '  Initech ',
        brandColor: '#0f766e',
        logo: dataUrl('png', png),
        replyTo: 'contracts@initech.example',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: orgId,
      name: 'Initech',
      brandColor: '#0F766E',
      replyTo: 'contracts@initech.example',
    });
    expect(res.body.data.logoUrl).toMatch(
      new RegExp(`^http://localhost:3000/logos/${orgId}\\?v=[0-9a-f]{12}$`),
    );
    expect((await t.request('GET', '/api/v1/organization', { key })).body.data).toEqual(
      res.body.data,
    );

    const logo = await t.app.inject({
      url: new URL(res.body.data.logoUrl).pathname + new URL(res.body.data.logoUrl).search,
    });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.rawPayload.equals(png)).toBe(true);

    const cleared = await t.request('PATCH', '/api/v1/organization', {
      key,
      body: { brandColor: null, logo: null, replyTo: null },
    });
    expect(cleared.body.data).toMatchObject({
      name: 'Initech',
      brandColor: null,
      logoUrl: null,
      replyTo: null,
    });
    expect((await t.app.inject({ url: `/logos/${orgId}` })).statusCode).toBe(404);
  });

  it('refuses bad input with plain messages', async () => {
    const bad = async (body: unknown) => {
      const res = await t.request('PATCH', '/api/v1/organization', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      return res.body.error;
    };
    await bad({});
    await bad({ name: '   ' });
    await bad({ brandColor: 'teal' });
    await bad({ replyTo: 'not an address' });
    await bad({ plan: 'enterprise' });
    await bad({ logo: 'data:image/svg+xml;base64,PHN2Zy8+' });
    expect((await bad({ logo: dataUrl('png', Buffer.from('GIF89a not a png')) })).message).toBe(
      'logo is not a PNG image',
    );
    const huge = await t.request('PATCH', '/api/v1/organization', {
      body: { logo: dataUrl('png', Buffer.concat([png, Buffer.alloc(300 * 1024)])) },
    });
    expect([400, 413]).toContain(huge.status);
    expect((await t.request('GET', '/api/v1/organization')).body.data.name).toBe('Acme');
  });

  it('needs organization.write', async () => {
    const key = await t.keyWith(['organization.read']);
    const res = await t.request('PATCH', '/api/v1/organization', { key, body: { name: 'Hacked' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});
