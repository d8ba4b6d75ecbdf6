import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkTemplate, clientRow } from '../bulk-sends/setup.ts';
import { HttpPeer } from '../helpers/http-peer.ts';
import {
  address,
  attachPdf,
  auditActions,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';

const SECRET = 'sms-gateway-secret-0123456789abcdef';
let t: SigningTest;
let peer: HttpPeer;
beforeAll(async () => {
  peer = await HttpPeer.start();
  t = await signingApp({ SMS_URL: `${peer.origin}/sms`, SMS_SECRET: SECRET });
});
afterAll(async () => {
  await t.stop();
  await peer.close();
});

const requestCode = (token: string) =>
  t.request('POST', `/api/v1/signing/${token}/otp`, { key: null });
const complete = (token: string, otp?: string) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { values: {}, signature: typed(), ...(otp ? { otp } : {}) },
  });
const to = (phone: string) => peer.requests.filter((r) => JSON.parse(r.body).to === phone);
const codeIn = (body: string) => /\b(\d{6})\b/.exec(JSON.parse(body).body)![1];

async function smsDocument(phone: string, signerExtra: Record<string, unknown> = {}) {
  const email = address('sms');
  const doc = await sentDocument(t, {
    signers: [{ name: 'Sam', email, phone, ...signerExtra }],
    body: signerExtra.otpMethod ? {} : { otpMethod: 'sms' },
  });
  return { doc, email, token: latestToken(t, email) };
}

describe('otpMethod sms: validation', () => {
  it('needs a valid E.164 phone when the effective otpMethod is sms (400 validation_error)', async () => {
    const noPhone = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', otpMethod: 'sms', signers: [{ name: 'A', email: address('a') }] },
    });
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.error.code).toBe('validation_error');
    expect(noPhone.body.error.details[0].path).toBe('body.signers.0.phone');

    const badPhone = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'x',
        signers: [{ name: 'A', email: address('a'), otpMethod: 'sms', phone: '+1 555 01' }],
      },
    });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.error.details[0].path).toBe('body.signers.0.phone');

    const doc = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', otpMethod: 'sms' },
    });
    const id = doc.body.data.id;
    const add = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'B', email: address('b') },
    });
    expect(add.status).toBe(400);
    expect(add.body.error.details[0].path).toBe('body.phone');
    // A signer that overrides the document's method needs no phone.
    const byEmail = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'B', email: address('b'), otpMethod: 'email' },
    });
    expect(byEmail.status).toBe(201);
    expect(byEmail.body.data.otpMethod).toBe('email');

    const withPhone = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'C', email: address('c'), phone: '+44 20 7946 0958' },
    });
    expect(withPhone.status).toBe(201);
    expect(withPhone.body.data).toMatchObject({ phone: '+442079460958', otpMethod: null });
    const removed = await t.request(
      'PATCH',
      `/api/v1/documents/${id}/signers/${withPhone.body.data.id}`,
      { body: { phone: null } },
    );
    expect(removed.status).toBe(400);
    expect(removed.body.error.details[0].path).toBe('body.phone');
    const tooLong = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'D', email: address('d'), phone: `+1${'2'.repeat(40)}` },
    });
    expect(tooLong.status).toBe(400);
  });

  it('refuses to send a document switched to sms while a signer has no phone', async () => {
    const email = address('late');
    const created = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'x',
        signers: [{ name: 'L', email }],
        fields: [{ type: 'signature', page: 1, x: 1, y: 1, width: 10, height: 5, assignedTo: 0 }],
      },
    });
    const id = created.body.data.id;
    await attachPdf(t, id);
    expect(
      (await t.request('PATCH', `/api/v1/documents/${id}`, { body: { otpMethod: 'sms' } })).status,
    ).toBe(200);
    const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
    expect(sent.status).toBe(400);
    expect(sent.body.error.code).toBe('validation_error');
  });

  it('a bulk send with otpMethod sms names each row whose signer has no valid phone', async () => {
    const tpl = await bulkTemplate(t);
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: tpl,
        otpMethod: 'sms',
        rows: [
          {
            signers: [{ role: 'Client', name: 'P', email: address('p'), phone: '+14155550123' }],
          },
          clientRow(1),
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'rows[1].signers[0].phone',
    ]);
  });
});

describe('otpMethod sms through an SMS gateway (SMS_URL https://…)', () => {
  it('texts the code in a job, signed like a webhook; the code completes the signing', async () => {
    const { doc, email, token } = await smsDocument('+1 415 555 0123');
    const session = (await t.request('GET', `/api/v1/signing/${token}`, { key: null })).body.data;
    expect(session).toMatchObject({
      otpRequired: true,
      otpMethod: 'sms',
      otpPhone: '+1 ••• ••• 0123',
    });
    const mailsBefore = t.sink.to(email).length;
    const res = await requestCode(token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ method: 'sms', sentTo: '+1 ••• ••• 0123' });
    // The request only queued the message.
    expect(to('+14155550123')).toHaveLength(0);
    await t.settle();
    const [req] = to('+14155550123');
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/sms');
    expect(req.headers['content-type']).toBe('application/json');
    const ts = req.headers['x-service-timestamp'] as string;
    const expected = createHmac('sha256', SECRET).update(`${ts}.${req.body}`).digest('hex');
    expect(req.headers['x-service-signature']).toBe(`sha256=${expected}`);
    const body = JSON.parse(req.body);
    expect(Object.keys(body).sort()).toEqual(['body', 'idempotencyKey', 'to']);
    expect(body.idempotencyKey).toMatch(/^sms_/);
    expect(req.headers['idempotency-key']).toBe(body.idempotencyKey);
    expect(body.body).toMatch(/\b\d{6}\b/);
    expect(body.body.length).toBeLessThanOrEqual(160);
    // No code by email.
    expect(t.sink.to(email).length).toBe(mailsBefore);

    const missing = await complete(token);
    expect(missing.body.error.code).toBe('otp_required');
    const done = await complete(token, codeIn(req.body));
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await auditActions(t, doc.id)).toContain('signer.otp_sent');
  });

  it('a code the gateway refuses (4xx) makes the document action_required (sms_undeliverable); correcting the phone resumes it', async () => {
    // The answer quotes the message: its code must not reach the sender.
    peer.respond = (r) =>
      JSON.parse(r.body).to === '+14155550199'
        ? { status: 400, body: { error: 'unknown number', message: JSON.parse(r.body).body } }
        : { status: 200 };
    const { doc, token } = await smsDocument('+14155550199');
    expect((await requestCode(token)).status).toBe(200);
    await t.settle();
    expect(to('+14155550199')).toHaveLength(1);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('action_required');
    expect(detail.actionRequired).toMatchObject({
      reason: 'sms_undeliverable',
      signerId: doc.signers[0].id,
    });
    expect(detail.actionRequired.message).toContain('unknown number');
    const code = codeIn(to('+14155550199')[0].body);
    expect(detail.actionRequired.message).not.toContain(code);
    expect(detail.actionRequired.message).toContain('••••••');
    expect(await auditActions(t, doc.id)).toContain('signer.sms_failed');

    const fixed = await t.request(
      'PATCH',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}`,
      { body: { phone: '+1 415 555 0142' } },
    );
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(fixed.body.data.phone).toBe('+14155550142');
    const after = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(after.status).toBe('pending');
    expect(after.actionRequired).toBeNull();
    await t.settle();
    // The corrected signer gets a fresh link; a new code goes to the new phone.
    const fresh = latestToken(t, doc.signers[0].email);
    t.clock.advance(61_000);
    expect((await requestCode(fresh)).status).toBe(200);
    await t.settle();
    expect(to('+14155550142')).toHaveLength(1);
    peer.respond = () => ({ status: 200 });
  });

  it('retries a message the gateway could not take (5xx) while its code is valid', async () => {
    let calls = 0;
    peer.respond = (r) =>
      JSON.parse(r.body).to === '+14155550177' && ++calls === 1 ? { status: 503 } : { status: 200 };
    const { doc, token } = await smsDocument('+14155550177');
    expect((await requestCode(token)).status).toBe(200);
    await t.settle();
    expect(to('+14155550177')).toHaveLength(1);
    t.clock.advance(6_000);
    await t.settle();
    const tries = to('+14155550177');
    expect(tries).toHaveLength(2);
    // The same message: the gateway can drop the repeat by its key.
    expect(JSON.parse(tries[1].body).idempotencyKey).toBe(JSON.parse(tries[0].body).idempotencyKey);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('pending');
    peer.respond = () => ({ status: 200 });
  });
});
