import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { normalizeCity, normalizeCountry, registerGeo } from '../../src/http/geo.ts';
import { buildMmdb } from './mmdb.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-geo-'));
const mmdb = path.join(dir, 'test-city.mmdb');
fs.writeFileSync(
  mmdb,
  buildMmdb([
    {
      cidr: '81.2.69.0/24',
      record: {
        city: { names: { en: 'London' } },
        country: { iso_code: 'GB', names: { en: 'United Kingdom' } },
      },
    },
    {
      cidr: '89.160.20.112/28',
      record: { city: { names: { en: 'Linköping' } }, country: { iso_code: 'SE' } },
    },
    { cidr: '175.16.199.0/24', record: { country: { iso_code: 'CN' } } },
  ]),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Sends a one-signer document, has the signer open and complete it with `headers`, returns the audit entries of those two actions. */
async function signWith(t: SigningTest, headers: Record<string, string>) {
  const email = address('geo');
  const doc = await sentDocument(t, { signers: [{ name: 'Geo', email }] });
  const token = latestToken(t, email);
  expect((await t.request('GET', `/api/v1/signing/${token}`, { key: null, headers })).status).toBe(
    200,
  );
  expect(
    (
      await t.request('POST', `/api/v1/signing/${token}/complete`, {
        key: null,
        headers,
        body: { signature: typed() },
      })
    ).status,
  ).toBe(200);
  const audit = (await t.request('GET', `/api/v1/documents/${doc.id}/audit?limit=100`)).body.data;
  return {
    viewed: audit.find((e: any) => e.action === 'document.viewed'),
    completed: audit.find((e: any) => e.action === 'signer.completed'),
  };
}

describe('GeoIP normalisation', () => {
  it('keeps two-letter country codes only and decodes cities', () => {
    expect(normalizeCountry('gb')).toBe('GB');
    expect(normalizeCountry('XX')).toBe('');
    expect(normalizeCountry('T1')).toBe('');
    expect(normalizeCountry('Germany')).toBe('');
    expect(normalizeCountry(undefined)).toBe('');
    expect(normalizeCity('S%C3%A3o%20Paulo')).toBe('São Paulo');
    expect(normalizeCity('Bad\u0000City')).toBe('BadCity');
    expect(normalizeCity('x'.repeat(300))).toHaveLength(100);
  });
});

describe('without TRUST_PROXY', () => {
  let t: SigningTest;
  beforeAll(async () => {
    t = await signingApp();
  });
  afterAll(async () => t.stop());

  it('ignores forwarding and location headers a client could forge', async () => {
    const { completed } = await signWith(t, {
      'x-forwarded-for': '81.2.69.142',
      'cf-ipcountry': 'DE',
      'x-geo-city': 'Berlin',
      'user-agent': 'Forger/1',
    });
    expect(completed).toMatchObject({
      ipAddress: '127.0.0.1',
      geoCity: '',
      geoCountry: '',
      userAgent: 'Forger/1',
    });
  });
});

describe('TRUST_PROXY with proxy headers and GEOIP_DB (MaxMind format)', () => {
  let t: SigningTest;
  beforeAll(async () => {
    t = await signingApp({ TRUST_PROXY: '127.0.0.1', GEOIP_DB: mmdb });
  });
  afterAll(async () => t.stop());

  it('takes the client IP from X-Forwarded-For and the location from the proxy headers', async () => {
    const { viewed, completed } = await signWith(t, {
      'x-forwarded-for': '203.0.113.9',
      'cf-ipcountry': 'de',
      'cf-ipcity': 'Berlin',
    });
    for (const entry of [viewed, completed])
      expect(entry).toMatchObject({
        ipAddress: '203.0.113.9',
        geoCity: 'Berlin',
        geoCountry: 'DE',
      });
    const other = await signWith(t, {
      'x-forwarded-for': '203.0.113.10',
      'x-geo-country': 'FR',
      'x-geo-city': 'Lyon',
    });
    expect(other.completed).toMatchObject({
      ipAddress: '203.0.113.10',
      geoCity: 'Lyon',
      geoCountry: 'FR',
    });
  });

  it('looks the client IP up in the database; proxy headers win where present', async () => {
    const london = await signWith(t, { 'x-forwarded-for': '81.2.69.142' });
    expect(london.completed).toMatchObject({
      ipAddress: '81.2.69.142',
      geoCity: 'London',
      geoCountry: 'GB',
    });
    const sweden = await signWith(t, { 'x-forwarded-for': '89.160.20.115' });
    expect(sweden.completed).toMatchObject({ geoCity: 'Linköping', geoCountry: 'SE' });
    const countryOnly = await signWith(t, { 'x-forwarded-for': '175.16.199.1' });
    expect(countryOnly.completed).toMatchObject({ geoCity: '', geoCountry: 'CN' });
    const unknown = await signWith(t, { 'x-forwarded-for': '198.51.100.7' });
    expect(unknown.completed).toMatchObject({
      ipAddress: '198.51.100.7',
      geoCity: '',
      geoCountry: '',
    });
    const ipv6 = await signWith(t, { 'x-forwarded-for': '2001:db8::1' });
    expect(ipv6.completed).toMatchObject({ ipAddress: '2001:db8::1', geoCity: '', geoCountry: '' });
    const header = await signWith(t, { 'x-forwarded-for': '81.2.69.142', 'cf-ipcountry': 'IE' });
    expect(header.completed).toMatchObject({ geoCity: 'London', geoCountry: 'IE' });
  });

  it('refuses to start with a GEOIP_DB that is not a MaxMind database', async () => {
    const bogus = path.join(dir, 'bogus.mmdb');
    fs.writeFileSync(bogus, 'not a database');
    const config = loadConfig({ DATA_DIR: dir, GEOIP_DB: bogus });
    await expect(registerGeo(Fastify(), config)).rejects.toThrow();
  });
});

describe('TRUST_PROXY names the proxies', () => {
  let t: SigningTest;
  beforeAll(async () => {
    t = await signingApp({ TRUST_PROXY: '10.0.0.0/8,192.0.2.7' });
  });
  afterAll(async () => t.stop());

  it('ignores forwarding and location headers from a peer that is not one of them', async () => {
    const { viewed, completed } = await signWith(t, {
      'x-forwarded-for': '81.2.69.142',
      'cf-ipcountry': 'DE',
      'cf-ipcity': 'Berlin',
      'x-geo-city': 'Lyon',
    });
    for (const entry of [viewed, completed])
      expect(entry).toMatchObject({ ipAddress: '127.0.0.1', geoCity: '', geoCountry: '' });
  });

  it('refuses true, hop counts and anything that is not an address or CIDR at config load', () => {
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'true' })).toThrow(/name the proxies/);
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: '2' })).toThrow(/name the proxies/);
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'proxy.local' })).toThrow(
      /not an IP address or CIDR/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      /not an IP address or CIDR/,
    );
    expect(
      loadConfig({ DATA_DIR: dir, TRUST_PROXY: '10.0.0.0/8, fd00::/8,192.0.2.7' }).trustProxy,
    ).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
  });
});
