import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../campaigns/setup.ts';
import { listen, onPort, putFile, requestUpload } from '../files/helpers.ts';
import { createDocument, samplePdf } from '../helpers/factories.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * What an outsider can make the public endpoints do: limits checked before the body is read,
 * failed authentications counted per IP (test/hostile/auth-failures.test.ts), mail to any address bounded per form and per address,
 * slow senders cut off, concurrent codes for one address answered without a 500, upload tokens
 * only in the form Signet wrote them.
 */

let t: SigningTest;
let base: string;
beforeAll(async () => {
  t = await signingApp({
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_TOKEN_PER_MINUTE: '4',
    AUTH_FAILURES_PER_MINUTE: '3',
    CAMPAIGN_OTP_MAILS_PER_HOUR: '3',
    ADDRESS_OTP_MAILS_PER_HOUR: '2',
    CAMPAIGN_SUBMISSIONS_PER_HOUR: '3',
    ADDRESS_SUBMISSIONS_PER_HOUR: '2',
    HEADERS_TIMEOUT_MS: '500',
    REQUEST_TIMEOUT_MS: '1500',
  });
  base = await listen(t);
});
afterAll(async () => t.stop());

const from = (
  ip: string,
  method: string,
  url: string,
  opts: { key?: string; body?: unknown } = {},
) =>
  t.app.inject({
    method: method as 'GET',
    url,
    remoteAddress: ip,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body ? { 'content-type': 'application/json' } : {}),
    },
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });

/** Sends the head of a request on a raw socket (no body) and resolves with what the server answered and when it closed. */
function rawHead(
  head: string,
  waitMs: number,
): Promise<{ text: string; ms: number; answeredMs: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(base);
    const started = Date.now();
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    let text = '';
    let answeredMs = -1;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, ms: Date.now() - started, answeredMs, closed: false });
    }, waitMs);
    socket.on('data', (c) => {
      if (answeredMs < 0) answeredMs = Date.now() - started;
      text += c.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, ms: Date.now() - started, answeredMs, closed: true });
    });
  });
}

describe('limits checked before the body is read', () => {
  it('refuses an identity upload the link cannot make at once, without waiting for its 10 MB body', async () => {
    // A real link of a document that asks for no identity evidence: 409 from the token alone.
    const email = address('nokyc');
    await sentDocument(t, { signers: [{ name: 'No KYC', email }] });
    const res = await rawHead(
      `POST /api/v1/signing/${latestToken(t, email)}/identity HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 10000000\r\n\r\n`,
      1500,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 409/);
    expect(res.answeredMs).toBeLessThan(1000);
  });

  it('answers an unknown campaign slug on submissions at once, without waiting for its 4 MB body', async () => {
    const res = await rawHead(
      'POST /api/v1/public/campaigns/no-such-form-abcdef/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n',
      1000,
    );
    expect(res.text).toMatch(/^HTTP\/1\.1 404/);
  });

  it('limits one signing token to RATE_LIMIT_TOKEN_PER_MINUTE requests whatever address they come from', async () => {
    const email = address('tok');
    await sentDocument(t, { signers: [{ name: 'Tok', email }] });
    const token = latestToken(t, email);
    for (let i = 1; i <= 4; i++)
      expect((await from(`198.51.100.${i}`, 'GET', `/api/v1/signing/${token}`)).statusCode).toBe(
        200,
      );
    const refused = await from('198.51.100.9', 'GET', `/api/v1/signing/${token}`);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('mail to any address, bounded', () => {
  it('limits campaign code mails per address across forms and per form', async () => {
    const forms = [
      await createCampaign(t, { requireOtp: true, collectPhone: false }),
      await createCampaign(t, { requireOtp: true, collectPhone: false }),
    ];
    const victim = address('victim');
    const otp = (slug: string, email: string) =>
      t.request('POST', `/api/v1/public/campaigns/${slug}/otp`, { key: null, body: { email } });
    const firstCode = await otp(forms[0].slug, victim);
    expect(firstCode.body).toMatchObject({ data: { sentTo: expect.any(String) } });
    expect((await otp(forms[1].slug, victim)).status).toBe(200);
    // A third form, a third code to the same address within the hour: refused.
    const third = await createCampaign(t, { requireOtp: true, collectPhone: false });
    const refused = await otp(third.slug, victim);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/codes per hour to one email address/);
    // Per form: 3 codes an hour to distinct addresses, then refused.
    expect((await otp(third.slug, address('a'))).status).toBe(200);
    expect((await otp(third.slug, address('b'))).status).toBe(200);
    expect((await otp(third.slug, address('c'))).status).toBe(200);
    expect((await otp(third.slug, address('d'))).body.error.message).toMatch(
      /codes per hour from this form/,
    );
  });

  it('limits submissions per address across forms and per form', async () => {
    const forms = [
      await createCampaign(t, { collectPhone: false }),
      await createCampaign(t, { collectPhone: false }),
    ];
    const page = (
      await t.request('GET', `/api/v1/public/campaigns/${forms[0].slug}`, { key: null })
    ).body.data;
    const submit = (slug: string, email: string) =>
      t.request('POST', `/api/v1/public/campaigns/${slug}/submissions`, {
        key: null,
        body: { name: 'Sub', email, signature: { kind: 'typed', value: 'Sub' } },
      });
    expect(page).toBeDefined();
    const victim = address('sub-victim');
    expect((await submit(forms[0].slug, victim)).status).toBe(201);
    expect((await submit(forms[1].slug, victim)).status).toBe(201);
    const refused = await submit(forms[0].slug, victim);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/submissions per hour from one email address/);
    expect((await submit(forms[1].slug, address('x'))).status).toBe(201);
    expect((await submit(forms[1].slug, address('y'))).status).toBe(201);
    expect((await submit(forms[1].slug, address('z'))).body.error.message).toMatch(
      /submissions per hour to this form/,
    );
  });

  it('answers concurrent code requests for one address without a 500: one code, the others refused as resends', async () => {
    // Several rounds of four at once (a form each: this file allows 3 code mails per form): the
    // race (both read no code, then each replaces the other's) is a matter of timing.
    for (let round = 0; round < 30; round++) {
      const form = await createCampaign(t, {
        requireOtp: true,
        collectPhone: false,
        name: `Race ${round}`,
      });
      const email = address('race');
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          t.request('POST', `/api/v1/public/campaigns/${form.slug}/otp`, {
            key: null,
            body: { email },
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429, 429]);
    }
  });
});

describe('server timeouts', () => {
  it('closes a connection whose headers do not arrive within HEADERS_TIMEOUT_MS', async () => {
    const res = await rawHead('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 5000);
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(2000);
  });

  it('closes a request whose body does not arrive within REQUEST_TIMEOUT_MS', async () => {
    const id = await createDocument(t);
    const ticket = await requestUpload(t, id);
    const path = new URL(onPort(base, ticket.uploadUrl)).pathname;
    const res = await rawHead(
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: 1000000\r\n\r\n%PDF-1.7\n`,
      6000,
    );
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(4000);
  });
});

describe('upload tokens', () => {
  it('accepts only the canonical base64url spelling of a token', async () => {
    const id = await createDocument(t);
    const pdf = await samplePdf();
    const ticket = await requestUpload(t, id);
    const token = new URL(ticket.uploadUrl).pathname.split('/').at(-1)!;
    const [payload, mac] = token.split('.');
    // The MAC's last character carries 2 unused bits: flipping one decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = mac.slice(0, -1) + alphabet[alphabet.indexOf(mac.at(-1)!) ^ 1];
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(mac, 'base64url'))).toBe(true);
    const res = await fetch(`${base}/uploads/${payload}.${twin}`, {
      method: 'PUT',
      headers: ticket.headers,
      body: new Uint8Array(pdf),
    });
    expect(res.status).toBe(403);
    expect((await putFile(base, ticket, pdf)).status).toBe(200);
  });
});
