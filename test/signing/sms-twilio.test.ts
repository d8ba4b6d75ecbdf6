import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpPeer, type PeerRequest } from '../helpers/http-peer.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

/*
 * The Twilio driver against a local peer that speaks the request and answer shapes of Twilio's
 * Messages API (form body, basic auth, 201 JSON): not against Twilio itself.
 */

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token-0123';
const FROM = '+15005550006';
let t: SigningTest;
let peer: HttpPeer;
beforeAll(async () => {
  peer = await HttpPeer.start();
  t = await signingApp({
    SMS_URL: `twilio+http://${SID}:${TOKEN}@127.0.0.1:${peer.port}?from=${encodeURIComponent(FROM)}`,
  });
  peer.respond = twilio;
});
afterAll(async () => {
  await t.stop();
  await peer.close();
});

/** Twilio's answers: 201 with the message, 400 `{code, message, status}` for a number it refuses, 500 for `+1415555019x`. */
function twilio(req: PeerRequest): { status: number; body?: unknown } {
  const form = new URLSearchParams(req.body);
  const to = form.get('To') ?? '';
  if (to === '+14155550100')
    return {
      status: 400,
      body: {
        code: 21211,
        message: "The 'To' number +14155550100 is not a valid phone number.",
        status: 400,
      },
    };
  if (to.startsWith('+1415555019')) return { status: 500, body: { message: 'busy' } };
  return {
    status: 201,
    body: {
      sid: 'SM0123456789abcdef0123456789abcdef',
      status: 'queued',
      to,
      from: FROM,
      body: form.get('Body'),
    },
  };
}

const requestCode = (token: string) =>
  t.request('POST', `/api/v1/signing/${token}/otp`, { key: null });
const sentTo = (phone: string) =>
  peer.requests.filter((r) => new URLSearchParams(r.body).get('To') === phone);

async function smsDocument(phone: string) {
  const email = address('tw');
  const doc = await sentDocument(t, {
    signers: [{ name: 'Tess', email, phone, otpMethod: 'sms' }],
  });
  return { doc, token: latestToken(t, email) };
}

describe('otpMethod sms through Twilio (SMS_URL twilio://…)', () => {
  it("posts Twilio's Messages API form with basic auth; the texted code signs", async () => {
    const { token } = await smsDocument('+14155550123');
    expect((await requestCode(token)).status).toBe(200);
    await t.settle();
    const [req] = sentTo('+14155550123');
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`,
    );
    const form = new URLSearchParams(req.body);
    expect([...form.keys()].sort()).toEqual(['Body', 'From', 'To']);
    expect(form.get('From')).toBe(FROM);
    const code = /\b(\d{6})\b/.exec(form.get('Body')!)![1];
    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: {}, signature: typed(), otp: code },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  });

  it("a number Twilio refuses (400) makes the document action_required with Twilio's reason", async () => {
    const { doc, token } = await smsDocument('+14155550100');
    expect((await requestCode(token)).status).toBe(200);
    await t.settle();
    expect(sentTo('+14155550100')).toHaveLength(1);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('action_required');
    expect(detail.actionRequired.reason).toBe('sms_undeliverable');
    expect(detail.actionRequired.message).toContain('21211');
    // Asking again while the phone is known bad is refused; nothing more is sent.
    t.clock.advance(61_000);
    expect((await requestCode(token)).status).toBe(409);
    await t.settle();
    expect(sentTo('+14155550100')).toHaveLength(1);
  });

  it('retries while the code is valid, never once it has expired; then sms_undeliverable', async () => {
    const { doc, token } = await smsDocument('+14155550191');
    expect((await requestCode(token)).status).toBe(200);
    await t.settle();
    expect(sentTo('+14155550191')).toHaveLength(1);
    t.clock.advance(6_000);
    await t.settle();
    expect(sentTo('+14155550191')).toHaveLength(2);
    // Past the code's 10 minutes, the next attempt gives up without calling Twilio.
    t.clock.advance(11 * 60_000);
    await t.settle();
    expect(sentTo('+14155550191')).toHaveLength(2);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.actionRequired).toMatchObject({ reason: 'sms_undeliverable' });
    expect(detail.actionRequired.message).toContain('expired');
  });
});
