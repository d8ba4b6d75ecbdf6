import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  address,
  auditActions,
  latestToken,
  PNG_DATA_URL,
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

const CODE = 'harbor-42';
const access = (token: string, accessCode: string) =>
  t.request('POST', `/api/v1/signing/${token}/access`, { key: null, body: { accessCode } });
const session = (value: string) => ({ key: null, headers: { 'x-signing-session': value } });

async function codedDocument(extra: Record<string, unknown> = {}) {
  const email = address('coded');
  const doc = await sentDocument(t, {
    signers: [{ name: 'Ada Lovelace', email, accessCode: CODE, ...extra }],
  });
  return { doc, email, token: latestToken(t, email) };
}

describe('signer accessCode', () => {
  it('is write-only and stored as a keyed hash, never the code', async () => {
    const { doc } = await codedDocument();
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(JSON.stringify(detail)).not.toContain(CODE);
    expect(detail.signers[0]).not.toHaveProperty('accessCode');
    const row = await t.database.handle.db
      .selectFrom('signers')
      .select('access_code_hash')
      .where('id', '=', doc.signers[0].id)
      .executeTakeFirstOrThrow();
    expect(row.access_code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.access_code_hash).not.toContain(CODE);
  });

  it('refuses codes outside 4-64 characters', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'x', signers: [{ name: 'A', email: address('short'), accessCode: 'abc' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toContain('accessCode');
  });
});

describe('POST /api/v1/signing/{token}/access', () => {
  it('every call of the link needs the session (401 access_code_required); the right code gives one', async () => {
    const { doc, token } = await codedDocument();
    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/file'],
      ['POST', '/otp'],
      ['POST', '/decline'],
      ['POST', '/complete'],
    ] as const) {
      const res = await t.request(method, `/api/v1/signing/${token}${path}`, {
        key: null,
        body: method === 'POST' ? { reason: 'x' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('access_code_required');
    }
    const upload = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/signing/${token}/fields/fld_x/file`,
      headers: { 'content-type': 'application/pdf' },
      payload: Buffer.from('%PDF-1.4'),
    });
    expect(upload.statusCode).toBe(401);

    const ok = await access(token, CODE);
    expect(ok.status).toBe(200);
    expect(ok.body.data.session).toEqual(expect.any(String));
    const lifetime = Date.parse(ok.body.data.expiresAt) - t.app.deps.clock.now().getTime();
    expect(lifetime).toBeGreaterThan(3590_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    const s = session(ok.body.data.session);
    const view = await t.request('GET', `/api/v1/signing/${token}`, s);
    expect(view.status).toBe(200);
    expect((await t.request('GET', `/api/v1/signing/${token}/file`, s)).status).toBe(200);
    // A forged or foreign session is refused.
    const forged = await t.request(
      'GET',
      `/api/v1/signing/${token}`,
      session(`${ok.body.data.session.split('.')[0]}.AAAA`),
    );
    expect(forged.status).toBe(401);
    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      ...s,
      body: { values: {}, signature: { kind: 'drawn', value: PNG_DATA_URL } },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await auditActions(t, doc.id)).toContain('signer.authenticated');
  });

  it('the session ends after an hour and when the sender changes the code', async () => {
    const { doc, token } = await codedDocument();
    const first = (await access(token, CODE)).body.data.session;
    expect((await t.request('GET', `/api/v1/signing/${token}`, session(first))).status).toBe(200);
    const patch = await t.request(
      'PATCH',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}`,
      {
        body: { accessCode: 'new-code-7' },
      },
    );
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    await t.settle();
    const newToken = latestToken(t, doc.signers[0].email);
    expect((await t.request('GET', `/api/v1/signing/${newToken}`, session(first))).status).toBe(
      401,
    );
    expect((await access(newToken, CODE)).status).toBe(403);
    const second = (await access(newToken, 'new-code-7')).body.data.session;
    expect((await t.request('GET', `/api/v1/signing/${newToken}`, session(second))).status).toBe(
      200,
    );
    t.clock.advance(3600_000 + 1);
    const late = await t.request('GET', `/api/v1/signing/${newToken}`, session(second));
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('access_code_required');
  });

  it('a wrong code is 403 invalid_access_code, audited; the fifth locks every link until resend', async () => {
    const { doc, token, email } = await codedDocument();
    for (let i = 1; i <= 4; i++) {
      const res = await access(token, `wrong-${i}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('invalid_access_code');
      expect(res.body.error.message).toContain(`${5 - i} tr`);
    }
    const fifth = await access(token, 'wrong-5');
    expect(fifth.status).toBe(403);
    expect(fifth.body.error.code).toBe('link_locked');
    // Locked: even the right code, and every link of the signer.
    expect((await access(token, CODE)).body.error.code).toBe('link_locked');
    const link = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`,
    );
    // (a new link from the sender unlocks; here the resend does, checked below)
    expect(link.status).toBe(200);
    const actions = await auditActions(t, doc.id);
    expect(actions.filter((a) => a === 'signer.access_code_failed')).toHaveLength(5);

    for (let i = 1; i <= 5; i++) await access(token, `wrong-again-${i}`);
    expect((await access(token, CODE)).body.error.code).toBe('link_locked');
    const before = t.sink.to(email).length;
    const resend = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/resend`,
    );
    expect(resend.status, JSON.stringify(resend.body)).toBe(200);
    expect(resend.body.data).toMatchObject({ signerId: doc.signers[0].id, sentTo: email });
    await t.settle();
    expect(t.sink.to(email).length).toBe(before + 1);
    const fresh = latestToken(t, email);
    expect(fresh).not.toBe(token);
    // The old link is retired; the new one works with the code.
    expect((await access(token, CODE)).status).toBe(403);
    expect((await access(token, CODE)).body.error.code).toBe('forbidden');
    expect((await access(fresh, CODE)).status).toBe(200);
    expect(await auditActions(t, doc.id)).toContain('signer.invitation_resent');
  });

  it('a signer without a code: the link works without a session, and /access is 409', async () => {
    const email = address('plain');
    await sentDocument(t, { signers: [{ name: 'Plain', email }] });
    const token = latestToken(t, email);
    expect((await t.request('GET', `/api/v1/signing/${token}`, { key: null })).status).toBe(200);
    const res = await access(token, 'anything');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
  });
});

describe('POST /api/v1/documents/{id}/signers/{signerId}/resend', () => {
  it('refuses finished signers, cc recipients and closed documents (409), unknown ids (404)', async () => {
    const email = address('resend');
    const doc = await sentDocument(t, { signers: [{ name: 'Ann', email }] });
    const signerId = doc.signers[0].id;
    expect(
      (await t.request('POST', `/api/v1/documents/${doc.id}/signers/sgn_nope/resend`)).status,
    ).toBe(404);
    const token = latestToken(t, email);
    await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: {}, signature: typed() },
    });
    const res = await t.request('POST', `/api/v1/documents/${doc.id}/signers/${signerId}/resend`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
  });
});
