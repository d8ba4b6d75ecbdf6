import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestUpload } from '../files/helpers.ts';
import { createDocument, samplePdf } from '../helpers/factories.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * Failed authentications are counted per address (AUTH_FAILURES_PER_MINUTE, 3 here), and past
 * the limit only requests whose key or token does not check out are refused: a valid key from the
 * same address (anyone else behind the same proxy) keeps working. A genuine credential refused for
 * another reason (an expired upload URL, a missing signing code) is not a failed authentication.
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp({ AUTH_FAILURES_PER_MINUTE: '3' });
});
afterAll(async () => t.stop());

const from = (
  ip: string,
  method: string,
  url: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; payload?: Buffer } = {},
) =>
  t.app.inject({
    method: method as 'GET',
    url,
    remoteAddress: ip,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    payload: opts.payload ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });

const badKey = (ip: string, i: number) =>
  from(ip, 'GET', '/api/v1/documents', { key: `sk_wrong${i}` });

describe('failed authentications per address', () => {
  it('refuses bad keys past the limit, never a valid key from the same address', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 3; i++) expect((await badKey(ip, i)).statusCode).toBe(401);
    const refused = await badKey(ip, 3);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ code: 'rate_limited' });
    expect(refused.json().error.message).toMatch(/failed authentications from your address/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // The customer behind the same address: its key checks out, so it is served, again and again.
    for (let i = 0; i < 5; i++) {
      const ok = await from(ip, 'GET', '/api/v1/documents', { key: t.key });
      expect(ok.statusCode).toBe(200);
    }
    const created = await from(ip, 'POST', '/api/v1/documents', {
      key: t.key,
      body: { name: 'Still served' },
    });
    expect(created.statusCode).toBe(201);
    // And a bad key from there is still refused.
    expect((await badKey(ip, 4)).statusCode).toBe(429);
    // Another address has its own count.
    expect((await badKey('203.0.113.11', 0)).statusCode).toBe(401);
  });

  it('counts a forged upload URL, and still takes a genuine one from that address', async () => {
    const ip = '203.0.113.20';
    const id = await createDocument(t);
    const ticket = await requestUpload(t, id);
    const path = new URL(ticket.uploadUrl).pathname;
    const forged = `${path.slice(0, -4)}${path.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const pdf = await samplePdf();
    const put = (url: string) =>
      from(ip, 'PUT', url, { headers: ticket.headers, payload: Buffer.from(pdf) });
    for (let i = 0; i < 3; i++) expect((await put(forged)).statusCode).toBe(403);
    expect((await put(forged)).statusCode).toBe(429);
    expect((await put(path)).statusCode).toBe(200);
  });

  it('counts a signing token that was never issued, and still opens a real link from that address', async () => {
    const ip = '203.0.113.30';
    const email = address('counted');
    await sentDocument(t, { signers: [{ name: 'Counted', email }] });
    const unknown = () =>
      from(ip, 'GET', `/api/v1/signing/${randomBytes(32).toString('base64url')}`);
    for (let i = 0; i < 3; i++) expect((await unknown()).statusCode).toBe(403);
    expect((await unknown()).statusCode).toBe(429);
    expect((await from(ip, 'GET', `/api/v1/signing/${latestToken(t, email)}`)).statusCode).toBe(
      200,
    );
  });
});

describe('genuine credentials refused for another reason do not count', () => {
  it('an expired upload URL (401) is not a failed authentication of the address', async () => {
    const ip = '203.0.113.40';
    const id = await createDocument(t);
    const ticket = await requestUpload(t, id);
    t.clock.advance(2 * 3600_000);
    try {
      const pdf = await samplePdf();
      for (let i = 0; i < 6; i++) {
        const res = await from(ip, 'PUT', new URL(ticket.uploadUrl).pathname, {
          headers: ticket.headers,
          payload: Buffer.from(pdf),
        });
        expect(res.statusCode).toBe(401);
        expect(res.json().error.message).toMatch(/expired/);
      }
    } finally {
      t.clock.advance(-2 * 3600_000);
    }
    expect((await badKey(ip, 0)).statusCode).toBe(401);
  });

  it('a signing completed without its code (401 otp_required) is not one either', async () => {
    const ip = '203.0.113.50';
    const email = address('otp');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Coded', email }],
      body: { otpMethod: 'email' },
    });
    const token = latestToken(t, email);
    for (let i = 0; i < 6; i++) {
      const res = await from(ip, 'POST', `/api/v1/signing/${token}/complete`, {
        body: { values: {}, signature: typed('Coded') },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('otp_required');
    }
    expect(doc.id).toMatch(/^doc_/);
    expect((await badKey(ip, 0)).statusCode).toBe(401);
  });
});
