import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  address,
  auditActions,
  latestToken,
  type SigningTest,
  sentDocument,
  signingApp,
  typed,
} from './setup.ts';

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const call = (method: string, token: string, path = '', body?: unknown) =>
  t.request(method, `/api/v1/signing/${token}${path}`, { key: null, body });
const reassign = (token: string, body: Record<string, unknown>) =>
  call('POST', token, '/reassign', body);
const grace = (extra: Record<string, unknown> = {}) => ({
  name: 'Grace Hopper',
  email: address('grace'),
  reason: 'Grace signs for our team while I am on leave',
  ...extra,
});

/** A sequential document of two signers (Ada, then Bob) that allows hand-over unless told otherwise. */
async function twoSigners(body: Record<string, unknown> = { allowReassign: true }) {
  const ada = address('ada');
  const bob = address('bob');
  const doc = await sentDocument(t, {
    signers: [
      { name: 'Ada Lovelace', email: ada },
      { name: 'Bob Babbage', email: bob },
    ],
    body,
  });
  return { doc, ada, bob, adaToken: latestToken(t, ada) };
}

describe('POST /api/v1/signing/{token}/reassign', () => {
  it("with codes by SMS, the new person's phone is required: the codes go to it", async () => {
    const ada = address('ada-sms');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: ada, phone: '+44 20 7946 0958' }],
      body: { allowReassign: true, otpMethod: 'sms' },
    });
    const token = latestToken(t, ada);
    const without = await reassign(token, grace());
    expect(without.status).toBe(400);
    expect(without.body.error.details[0]).toMatchObject({ path: 'body.phone' });
    const res = await reassign(token, grace({ phone: '+1 415 555 0123' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.signers[0].phone).toBe('+14155550123');
  });

  it('hands the row over: same id, order and fields; new name, email, phone; the new person is invited', async () => {
    const { doc, ada, adaToken } = await twoSigners();
    expect((await call('GET', adaToken)).body.data.canReassign).toBe(true);
    const body = grace({ phone: '+1 415 555 0123' });
    const res = await reassign(adaToken, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      documentId: doc.id,
      signerId: doc.signers[0].id,
      name: 'Grace Hopper',
      email: body.email,
      status: 'sent',
    });
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.signers[0]).toMatchObject({
      id: doc.signers[0].id,
      name: 'Grace Hopper',
      email: body.email,
      phone: '+14155550123',
      order: 0,
      status: 'sent',
    });
    expect(detail.fields.map((f: any) => f.assignedTo)).toEqual(
      doc.fields.map((f) => f.assignedTo),
    );
    await t.settle();
    const mails = t.sink.to(body.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('"Service agreement" was handed over to you to sign');
    expect(mails[0].text).toContain('Ada Lovelace has handed over their part');
    expect(mails[0].text).not.toContain(body.reason);
    expect(t.sink.to(ada).length).toBe(1);
    const actions = await auditActions(t, doc.id);
    expect(actions).toContain('signer.reassigned');
    const audit = (await t.request('GET', `/api/v1/documents/${doc.id}/audit?limit=100`)).body.data;
    expect(audit.find((e: any) => e.action === 'signer.reassigned').details).toBe(
      `Ada Lovelace <${ada}> (order 0) handed over to Grace Hopper <${body.email}>: ${body.reason}`,
    );

    // The new person signs with their own link; the turn then passes on.
    const graceToken = latestToken(t, body.email);
    const session = (await call('GET', graceToken)).body.data;
    expect(session.signer).toMatchObject({ name: 'Grace Hopper', email: body.email, order: 0 });
    expect(session.isYourTurn).toBe(true);
    const done = await call('POST', graceToken, '/complete', { values: {}, signature: typed() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  });

  it('every old link answers 410 link_replaced, whatever the call', async () => {
    const { adaToken } = await twoSigners();
    expect((await reassign(adaToken, grace())).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['GET', '/file', undefined],
      ['POST', '/otp', {}],
      ['POST', '/consent', {}],
      ['POST', '/complete', { values: {}, signature: typed() }],
      ['POST', '/decline', { reason: 'no' }],
      ['POST', '/reassign', grace()],
    ] as const) {
      const res = await call(method, adaToken, path, body);
      expect(res.status, `${method} ${path}`).toBe(410);
      expect(res.body.error.code).toBe('link_replaced');
      expect(res.body.error.message).not.toContain('Grace');
    }
    // The signing page of the old link says so in its own words (the client reads the code).
    const page = await t.request('GET', `/sign/${adaToken}`, { key: null });
    expect(page.status).toBe(200);
  });

  it('409 reassign_not_allowed without allowReassign, and for a signer with an access code (after its session)', async () => {
    const { adaToken } = await twoSigners({});
    expect((await call('GET', adaToken)).body.data.canReassign).toBe(false);
    const refused = await reassign(adaToken, grace());
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('reassign_not_allowed');

    const email = address('coded');
    await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email, accessCode: 'blue-harbor-42' }],
      body: { allowReassign: true },
    });
    const token = latestToken(t, email);
    const noSession = await reassign(token, grace());
    expect(noSession.status).toBe(401);
    expect(noSession.body.error.code).toBe('access_code_required');
    const access = await call('POST', token, '/access', { accessCode: 'blue-harbor-42' });
    const headers = { 'x-signing-session': access.body.data.session };
    const session = await t.request('GET', `/api/v1/signing/${token}`, { key: null, headers });
    expect(session.body.data.canReassign).toBe(false);
    const coded = await t.request('POST', `/api/v1/signing/${token}/reassign`, {
      key: null,
      headers,
      body: grace(),
    });
    expect(coded.status).toBe(409);
    expect(coded.body.error.code).toBe('reassign_not_allowed');
  });

  it('only the signer whose turn it is (409 not_your_turn)', async () => {
    const { bob } = await twoSigners();
    const bobToken = latestToken(t, bob);
    expect((await call('GET', bobToken)).body.data.canReassign).toBe(false);
    const res = await reassign(bobToken, grace());
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('not_your_turn');
  });

  it('bounds its input (400 validation_error) and refuses the signer’s own address', async () => {
    const { ada, adaToken } = await twoSigners();
    for (const body of [
      grace({ name: 'x'.repeat(201) }),
      grace({ name: '   ' }),
      grace({ email: 'not an address' }),
      grace({ email: `${'a'.repeat(250)}@example.test` }),
      grace({ reason: 'x'.repeat(1001) }),
      grace({ reason: ' ' }),
      grace({ phone: 'call me' }),
      grace({ extra: true }),
      { name: 'Grace Hopper', email: address('grace') },
      grace({ email: ada.toUpperCase() }),
    ]) {
      const res = await reassign(adaToken, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await reassign(adaToken, grace({ reason: 'x'.repeat(1000) }))).status).toBe(200);
  });

  it('the new person starts afresh: consent asked again, the signer is sent, not viewed', async () => {
    await t.request('PATCH', '/api/v1/organization', { body: { requireConsent: true } });
    try {
      const { doc, adaToken } = await twoSigners();
      expect((await call('POST', adaToken, '/consent', {})).status).toBe(200);
      expect((await call('GET', adaToken)).body.data.signer.status).toBe('viewed');
      const body = grace();
      expect((await reassign(adaToken, body)).status).toBe(200);
      const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
      expect(detail.signers[0].status).toBe('sent');
      await t.settle();
      const session = (await call('GET', latestToken(t, body.email))).body.data;
      expect(session.consent).toMatchObject({ required: true, given: false });
    } finally {
      await t.request('PATCH', '/api/v1/organization', { body: { requireConsent: false } });
    }
  });

  it('identity evidence awaiting review was the previous person’s: forgotten, and the document resumes', async () => {
    const ada = address('ada');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: ada }],
      body: { allowReassign: true, requireKyc: true },
    });
    const token = latestToken(t, ada);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/v1/signing/${token}/identity`,
      payload: png,
      headers: { 'content-type': 'image/png' },
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'action_required',
    );
    const body = grace();
    expect((await reassign(token, body)).status).toBe(200);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.status).toBe(
      'pending',
    );
    await t.settle();
    const session = (await call('GET', latestToken(t, body.email))).body.data;
    expect(session.verification).toEqual({ required: true, status: 'required' });
  });

  it('a parallel document: any open signer may hand over', async () => {
    const { bob } = await twoSigners({ allowReassign: true, signingType: 'parallel' });
    expect((await reassign(latestToken(t, bob), grace())).status).toBe(200);
  });
});
