import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  address,
  auditActions,
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

const requestCode = (token: string) =>
  t.request('POST', `/api/v1/signing/${token}/otp`, { key: null });
const complete = (token: string, otp?: string) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { values: {}, signature: typed(), ...(otp ? { otp } : {}) },
  });

/** Requests a code and reads it from the mail the SMTP peer received. */
async function codeFor(token: string, email: string): Promise<string> {
  const before = t.sink.to(email).length;
  const res = await requestCode(token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.settle();
  const mails = t.sink.to(email);
  expect(mails.length).toBe(before + 1);
  const match = /is (\d{6})\./.exec(mails.at(-1)!.text);
  expect(match).not.toBeNull();
  return match![1];
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function otpDocument(extra: Record<string, unknown> = {}) {
  const email = address('otp');
  const doc = await sentDocument(t, {
    signers: [
      { name: 'Otto', email },
      { name: 'Next', email: address('next') },
    ],
    body: { otpMethod: 'email', ...extra },
  });
  return { doc, email, token: latestToken(t, email) };
}

describe('POST /api/v1/signing/{token}/otp', () => {
  it('emails a 6-digit code; complete needs it (401 otp_required without, 403 invalid_otp when wrong)', async () => {
    const { doc, email, token } = await otpDocument();
    expect(
      (await t.request('GET', `/api/v1/signing/${token}`, { key: null })).body.data.otpRequired,
    ).toBe(true);

    const none = await complete(token, '123456');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('otp_required');

    const res = await requestCode(token);
    expect(res.status).toBe(200);
    expect(res.body.data.sentTo).toMatch(/^o\*\*\*@example\.test$/);
    expect(Date.parse(res.body.data.expiresAt) - t.clock.now().getTime()).toBeGreaterThan(
      9 * 60_000,
    );
    await t.settle();
    const code = /is (\d{6})\./.exec(t.sink.to(email).at(-1)!.text)![1];

    const missing = await complete(token);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('otp_required');
    const bad = await complete(token, wrong(code));
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('invalid_otp');
    expect(bad.body.error.message).toContain('4 attempt(s) left');

    const ok = await complete(token, code);
    expect(ok.status).toBe(200);
    const actions = await auditActions(t, doc.id);
    expect(actions).toEqual(
      expect.arrayContaining(['signer.otp_sent', 'signer.otp_failed', 'signer.completed']),
    );
  });

  it('after 5 tries the code is dead, even the right one; a new code works', async () => {
    const { email, token } = await otpDocument();
    const code = await codeFor(token, email);
    for (let i = 0; i < 5; i++) {
      const res = await complete(token, wrong(code));
      expect(res.status).toBe(403);
    }
    const dead = await complete(token, code);
    expect(dead.status).toBe(403);
    expect(dead.body.error.message).toContain('Too many wrong codes');

    t.clock.advance(61_000);
    const fresh = await codeFor(token, email);
    expect((await complete(token, fresh)).status).toBe(200);
  });

  it('a code expires after 10 minutes', async () => {
    const { email, token } = await otpDocument();
    const code = await codeFor(token, email);
    t.clock.advance(10 * 60_000 + 1000);
    const res = await complete(token, code);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('expired');
  });

  it('a new code voids the previous one', async () => {
    const { email, token } = await otpDocument();
    const first = await codeFor(token, email);
    t.clock.advance(61_000);
    const second = await codeFor(token, email);
    if (first !== second) expect((await complete(token, first)).status).toBe(403);
    expect((await complete(token, second)).status).toBe(200);
  });

  it('limits resends: one a minute, five an hour (429 with Retry-After)', async () => {
    const { email, token } = await otpDocument();
    await codeFor(token, email);
    const soon = await requestCode(token);
    expect(soon.status).toBe(429);
    expect(soon.body.error.code).toBe('rate_limited');
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(61_000);
      expect((await requestCode(token)).status).toBe(200);
    }
    t.clock.advance(61_000);
    const hourly = await requestCode(token);
    expect(hourly.status).toBe(429);
    expect(hourly.body.error.message).toContain('5 codes per hour');
    t.clock.advance(3_600_000);
    expect((await requestCode(token)).status).toBe(200);
  });

  it('is refused when the document does not use codes, or when it is not your turn', async () => {
    const plain = address('plain');
    await sentDocument(t, { signers: [{ name: 'Plain', email: plain }] });
    const res = await requestCode(latestToken(t, plain));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');

    const { doc } = await otpDocument();
    const second = doc.signers[1].email;
    const early = await requestCode(latestToken(t, second));
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('not_your_turn');
  });
});
