import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchedulers } from '../../src/jobs/schedulers.ts';
import {
  address,
  attachPdf,
  auditActions,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from '../signing/setup.ts';

/*
 * README "Embedding", the API side: a signer's `delivery`, the link endpoint's `expiresIn`, a
 * document's `sendCompletedCopy` and `redirectUrl`.
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const linkOf = (docId: string, signerId: string, body?: unknown) =>
  t.request('POST', `/api/v1/documents/${docId}/signers/${signerId}/link`, body ? { body } : {});
const tokenOf = (url: string) => url.split('/sign/')[1];
const complete = (token: string) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { values: {}, signature: typed() },
  });
/** A link's remaining life, to the second (the test clock ticks between calls). */
const lifeOf = (expiresAt: string) =>
  Math.round((Date.parse(expiresAt) - t.clock.now().getTime()) / 1000) * 1000;

describe('signer delivery', () => {
  it('defaults to email, is set on create, inline and by PATCH, and is answered everywhere', async () => {
    const created = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Delivery',
        signers: [
          { name: 'Mail', email: address('d-mail') },
          { name: 'Site', email: address('d-site'), delivery: 'embedded' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const detail = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
    expect(detail.signers.map((s: any) => s.delivery)).toEqual(['email', 'embedded']);

    const added = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'Third', email: address('d-third'), delivery: 'embedded' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data.delivery).toBe('embedded');
    const patched = await t.request(
      'PATCH',
      `/api/v1/documents/${id}/signers/${detail.signers[0].id}`,
      { body: { delivery: 'embedded' } },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.data.delivery).toBe('embedded');
    const back = await t.request('PATCH', `/api/v1/documents/${id}/signers/${added.body.data.id}`, {
      body: { delivery: 'email' },
    });
    expect(back.body.data.delivery).toBe('email');
    const list = (await t.request('GET', `/api/v1/documents/${id}/signers`)).body.data;
    expect(list.map((s: any) => s.delivery)).toEqual(['embedded', 'embedded', 'email']);

    const bad = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'Bad', email: address('d-bad'), delivery: 'sms' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });

  it('mails an embedded signer no invitation, no your-turn mail and no reminder; the email signer still gets theirs', async () => {
    const site = address('e-site');
    const mail = address('e-mail');
    const next = address('e-next');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Site', email: site, delivery: 'embedded' },
        { name: 'Mail', email: mail },
        { name: 'Next', email: next, delivery: 'embedded' },
      ],
      body: { reminderFrequency: 'daily', signingType: 'parallel' },
    });
    expect(t.sink.to(site)).toHaveLength(0);
    expect(t.sink.to(next)).toHaveLength(0);
    expect(t.sink.to(mail)).toHaveLength(1);

    t.clock.advance(DAY + 60_000);
    await runSchedulers(t.app.deps);
    await t.settle();
    expect(t.sink.to(site)).toHaveLength(0);
    expect(t.sink.to(mail).filter((m) => m.subject.startsWith('Reminder'))).toHaveLength(1);

    // The sender asks for the link instead; a resend (a mail) is refused.
    const resend = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/resend`,
    );
    expect(resend.status).toBe(409);
    expect(resend.body.error.code).toBe('invalid_state');
    const link = await linkOf(doc.id, doc.signers[0].id);
    expect(link.status).toBe(200);
    expect((await complete(tokenOf(link.body.data.url))).status).toBe(200);
    await t.settle();
    expect(t.sink.to(site)).toHaveLength(0);
  });

  it('mails no fresh invitation when an embedded signer’s address is corrected in flight', async () => {
    const site = address('k-site');
    const corrected = address('k-corrected');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Site', email: site, delivery: 'embedded' }],
    });
    const res = await t.request(
      'PATCH',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}`,
      {
        body: { email: corrected },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBe(corrected);
    await t.settle();
    expect(t.sink.to(site)).toHaveLength(0);
    expect(t.sink.to(corrected)).toHaveLength(0);
    // The sender hands out a fresh link instead.
    expect((await linkOf(doc.id, doc.signers[0].id)).status).toBe(200);
  });

  it('sends no your-turn mail when it becomes an embedded signer’s turn (sequential)', async () => {
    const first = address('s-first');
    const second = address('s-second');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'First', email: first },
        { name: 'Second', email: second, delivery: 'embedded' },
      ],
    });
    expect((await complete(latestToken(t, first))).status).toBe(200);
    await t.settle();
    expect(t.sink.to(second)).toHaveLength(0);
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.signers[1].status).toBe('sent');
    expect(await auditActions(t, doc.id)).toContain('signer.notified');
  });
});

describe('POST /api/v1/documents/{id}/signers/{signerId}/link expiresIn', () => {
  it('gives an embedded signer a one-hour link by default, 60 s to 24 h on request', async () => {
    const doc = await sentDocument(t, {
      signers: [{ name: 'Site', email: address('x-site'), delivery: 'embedded' }],
    });
    const signer = doc.signers[0].id;
    const byDefault = await linkOf(doc.id, signer);
    expect(byDefault.status).toBe(200);
    expect(lifeOf(byDefault.body.data.expiresAt)).toBe(HOUR);
    const shortest = await linkOf(doc.id, signer, { expiresIn: 60 });
    expect(lifeOf(shortest.body.data.expiresAt)).toBe(60_000);
    const longest = await linkOf(doc.id, signer, { expiresIn: 86400 });
    expect(lifeOf(longest.body.data.expiresAt)).toBe(DAY);
    for (const expiresIn of [59, 86401, 1.5, '600']) {
      const res = await linkOf(doc.id, signer, { expiresIn });
      expect(res.status, `${expiresIn}`).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(JSON.stringify(res.body.error.details)).toContain('expiresIn');
    }
    // A one-minute link stops working after its minute.
    const token = tokenOf(shortest.body.data.url);
    expect((await t.request('GET', `/api/v1/signing/${token}`, { key: null })).status).toBe(200);
    t.clock.advance(61_000);
    expect((await t.request('GET', `/api/v1/signing/${token}`, { key: null })).status).toBe(403);
  });

  it('keeps 30 days for an email signer by default and takes expiresIn up to 30 days', async () => {
    const doc = await sentDocument(t, { signers: [{ name: 'Mail', email: address('x-mail') }] });
    const signer = doc.signers[0].id;
    expect(lifeOf((await linkOf(doc.id, signer)).body.data.expiresAt)).toBe(30 * DAY);
    expect(lifeOf((await linkOf(doc.id, signer, { expiresIn: 7200 })).body.data.expiresAt)).toBe(
      2 * HOUR,
    );
    expect((await linkOf(doc.id, signer, { expiresIn: 30 * 86400 + 1 })).status).toBe(400);
  });
});

describe('document sendCompletedCopy', () => {
  async function signedBy(sendCompletedCopy?: boolean) {
    const site = address('c-site');
    const cc = address('c-cc');
    const body = sendCompletedCopy === undefined ? {} : { sendCompletedCopy };
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Site', email: site, delivery: 'embedded' },
        { name: 'Copy', email: cc, role: 'cc' },
      ],
      body,
    });
    const link = await linkOf(doc.id, doc.signers[0].id);
    expect((await complete(tokenOf(link.body.data.url))).status).toBe(200);
    await t.settle();
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('completed');
    const copies = (email: string) =>
      t.sink.to(email).filter((m) => m.subject.includes('signed by everyone'));
    return { detail, site: copies(site), cc: copies(cc) };
  }

  it('mails the completed copy by default, to embedded signers too', async () => {
    const { detail, site, cc } = await signedBy();
    expect(detail.sendCompletedCopy).toBe(true);
    expect(site).toHaveLength(1);
    expect(cc).toHaveLength(1);
  });

  it('mails no completed copy with sendCompletedCopy: false', async () => {
    const { detail, site, cc } = await signedBy(false);
    expect(detail.sendCompletedCopy).toBe(false);
    expect(site).toHaveLength(0);
    expect(cc).toHaveLength(0);
  });

  it('is changed by PATCH on a draft', async () => {
    const created = await t.request('POST', '/api/v1/documents', { body: { name: 'Copy' } });
    const id = created.body.data.id;
    const res = await t.request('PATCH', `/api/v1/documents/${id}`, {
      body: { sendCompletedCopy: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.sendCompletedCopy).toBe(false);
  });
});

describe('document redirectUrl', () => {
  it('is stored, checked, and answered on complete and decline for signers who are not embedded', async () => {
    const url = 'https://app.example.com/contracts/done?x=1';
    const mail = address('r-mail');
    const site = address('r-site');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Site', email: site, delivery: 'embedded' },
        { name: 'Mail', email: mail },
      ],
      body: { redirectUrl: url, signingType: 'parallel' },
    });
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.redirectUrl).toBe(url);
    const embedded = await complete(
      tokenOf((await linkOf(doc.id, doc.signers[0].id)).body.data.url),
    );
    expect(embedded.body.data.redirectUrl).toBeNull();
    const byMail = await complete(latestToken(t, mail));
    expect(byMail.status).toBe(200);
    expect(byMail.body.data.redirectUrl).toBe(url);

    const no = address('r-decline');
    await sentDocument(t, { signers: [{ name: 'No', email: no }], body: { redirectUrl: url } });
    const declined = await t.request('POST', `/api/v1/signing/${latestToken(t, no)}/decline`, {
      key: null,
      body: { reason: 'Not today' },
    });
    expect(declined.status).toBe(200);
    expect(declined.body.data.redirectUrl).toBe(url);
  });

  it('is null by default, refuses what is not an absolute http(s) URL, and can be cleared', async () => {
    const created = await t.request('POST', '/api/v1/documents', { body: { name: 'Redirect' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    await attachPdf(t, id);
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data.redirectUrl).toBeNull();
    for (const redirectUrl of [
      'javascript:alert(1)',
      '/relative',
      'ftp://x.test/',
      'https://a b',
    ]) {
      const res = await t.request('PATCH', `/api/v1/documents/${id}`, { body: { redirectUrl } });
      expect(res.status, redirectUrl).toBe(400);
      expect(res.body.error.details[0].path).toBe('body.redirectUrl');
    }
    const long = await t.request('PATCH', `/api/v1/documents/${id}`, {
      body: { redirectUrl: `https://x.test/${'a'.repeat(2000)}` },
    });
    expect(long.status).toBe(400);
    const set = await t.request('PATCH', `/api/v1/documents/${id}`, {
      body: { redirectUrl: 'http://localhost:8080/done' },
    });
    expect(set.body.data.redirectUrl).toBe('http://localhost:8080/done');
    const cleared = await t.request('PATCH', `/api/v1/documents/${id}`, {
      body: { redirectUrl: null },
    });
    expect(cleared.body.data.redirectUrl).toBeNull();
  });

  it('takes only https in production', async () => {
    const { checkDocumentRedirectUrl } = await import(
      '../../src/modules/documents-core/redirect-url.ts'
    );
    expect(() => checkDocumentRedirectUrl('http://app.example.com/done', true)).toThrow(/https/);
    expect(checkDocumentRedirectUrl('https://app.example.com/done', true)).toBe(
      'https://app.example.com/done',
    );
  });
});
