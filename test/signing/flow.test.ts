import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  address,
  auditActions,
  eventTypes,
  latestToken,
  PNG_DATA_URL,
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

const get = (token: string) => t.request('GET', `/api/v1/signing/${token}`, { key: null });
const complete = (token: string, body: unknown) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, { key: null, body });
const decline = (token: string, reason: string) =>
  t.request('POST', `/api/v1/signing/${token}/decline`, { key: null, body: { reason } });

describe('signing links in invitations', () => {
  it('emails every signer a link over SMTP; GET describes the document, the signer and their fields', async () => {
    const a = address('alice');
    const b = address('bob');
    const c = address('carol');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Alice', email: a },
        { name: 'Bob', email: b, role: 'approver' },
        { name: 'Carol', email: c, role: 'cc' },
      ],
      body: { message: 'Please sign by Friday' },
    });
    expect(t.sink.to(a)).toHaveLength(1);
    expect(t.sink.to(c)[0].text).not.toMatch(/\/sign\//);
    const token = latestToken(t, a);
    const res = await get(token);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.document).toMatchObject({
      id: doc.id,
      name: 'Service agreement',
      message: 'Please sign by Friday',
      status: 'pending',
      signingType: 'sequential',
      pageCount: 2,
      senderName: 'Acme',
    });
    expect(data.signer).toMatchObject({
      name: 'Alice',
      email: a,
      role: 'signer',
      status: 'viewed',
      order: 0,
    });
    expect(data.isYourTurn).toBe(true);
    expect(data.otpRequired).toBe(false);
    expect(data.verification).toEqual({ required: false, status: 'none' });
    expect(data.fields).toHaveLength(1);
    expect(data.fields[0]).toMatchObject({
      id: doc.fields[0].id,
      type: 'signature',
      page: 1,
      required: true,
      options: null,
    });
    expect(data.recipients.map((r: any) => r.name)).toEqual(['Alice', 'Bob', 'Carol']);
    expect(JSON.stringify(data.recipients)).not.toContain('@');

    // The first view is audited and emitted once; later views are not.
    await get(token);
    expect((await auditActions(t, doc.id)).filter((a) => a === 'document.viewed')).toHaveLength(1);
    const events = await eventTypes(t);
    expect(events.filter((e) => e === 'signer.viewed')).toHaveLength(1);
    expect(events.filter((e) => e === 'document.viewed')).toHaveLength(1);
    const signer = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.signers[0];
    expect(signer.status).toBe('viewed');
  });

  it('serves the PDF behind the link', async () => {
    const a = address('pdf');
    await sentDocument(t, { signers: [{ name: 'P', email: a }] });
    const res = await t.request('GET', `/api/v1/signing/${latestToken(t, a)}/file`, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.raw.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('refuses a forged or unknown token with 403 forbidden', async () => {
    for (const token of ['x'.repeat(43), 'not-a-token', 'A'.repeat(90)]) {
      const res = await get(token);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await complete('y'.repeat(43), { values: {}, signature: typed() })).status).toBe(403);
  });
});

describe('sequential order', () => {
  it('refuses the second signer (409 not_your_turn) until the first signs, then mails "your turn"', async () => {
    const a = address('first');
    const b = address('second');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'First', email: a },
        { name: 'Second', email: b },
      ],
    });
    const tokenB = latestToken(t, b);
    expect(t.sink.to(b)[0].text).toContain('Other signers come before you');

    const early = await get(tokenB);
    expect(early.body.data.isYourTurn).toBe(false);
    expect(early.body.data.signer.status).toBe('pending');
    const refused = await complete(tokenB, { values: {}, signature: typed('Second') });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('not_your_turn');
    expect(refused.body.error.message).toContain('First');

    const done = await complete(latestToken(t, a), { values: {}, signature: typed('First') });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      documentId: doc.id,
      signerId: doc.signers[0].id,
      status: 'completed',
      documentStatus: 'pending',
      allSigned: false,
    });
    await t.settle();

    const turnMail = t.sink.to(b).at(-1)!;
    expect(turnMail.subject).toContain('Your turn');
    const fresh = latestToken(t, b);
    expect(fresh).not.toBe(tokenB);
    // Both the invitation link and the "your turn" link work.
    expect((await get(tokenB)).body.data.isYourTurn).toBe(true);
    expect((await complete(fresh, { values: {}, signature: typed('Second') })).status).toBe(200);

    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.signers.map((s: any) => s.status)).toEqual(['completed', 'completed']);
    expect(detail.fields.map((f: any) => f.value)).toEqual(['First', 'Second']);
    const actions = await auditActions(t, doc.id);
    expect(actions.filter((x) => x === 'signer.completed')).toHaveLength(2);
    expect(actions).toContain('signer.notified');
  });

  it('parallel: every signer may sign in any order', async () => {
    const emails = [address('p0'), address('p1'), address('p2')];
    const doc = await sentDocument(t, {
      signers: emails.map((email, i) => ({ name: `P${i}`, email })),
      body: { signingType: 'parallel' },
    });
    for (const i of [2, 0]) {
      const res = await complete(latestToken(t, emails[i]), {
        values: {},
        signature: typed(`P${i}`),
      });
      expect(res.status).toBe(200);
      expect(res.body.data.allSigned).toBe(false);
    }
    const last = await complete(latestToken(t, emails[1]), {
      values: {},
      signature: { kind: 'drawn', value: PNG_DATA_URL },
    });
    expect(last.status).toBe(200);
    expect(last.body.data.allSigned).toBe(true);
    const fields = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.fields;
    // Stored as the PNG Signet re-encoded from it (normalized once at submission): still the same 1×1 image.
    const stored = fields.find((f: any) => f.assignedTo === 1).value as string;
    expect(stored).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(stored.slice('data:image/png;base64,'.length), 'base64');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1, 1]);
  });
});

describe('values', () => {
  const formFields = [
    { type: 'signature', page: 1, x: 5, y: 5, width: 20, height: 5, required: true, assignedTo: 0 },
    { type: 'date', page: 1, x: 5, y: 15, width: 20, height: 5, required: true, assignedTo: 0 },
    { type: 'number', page: 1, x: 5, y: 25, width: 20, height: 5, required: false, assignedTo: 0 },
    { type: 'checkbox', page: 1, x: 5, y: 35, width: 5, height: 5, required: false, assignedTo: 0 },
    {
      type: 'dropdown',
      page: 1,
      x: 5,
      y: 45,
      width: 20,
      height: 5,
      required: true,
      assignedTo: 0,
      options: ['Basic', 'Pro'],
    },
    {
      type: 'radio',
      page: 2,
      x: 5,
      y: 55,
      width: 20,
      height: 5,
      required: false,
      assignedTo: 0,
      options: ['Yes', 'No'],
    },
    { type: 'email', page: 2, x: 5, y: 65, width: 20, height: 5, required: false, assignedTo: 0 },
    { type: 'text', page: 2, x: 5, y: 75, width: 20, height: 5, required: false, assignedTo: 0 },
  ];

  async function formDocument() {
    const email = address('form');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Form Filler', email }],
      fields: formFields,
    });
    const ids = Object.fromEntries(doc.fields.map((f) => [f.type, f.id]));
    return { doc, ids, token: latestToken(t, email) };
  }

  it('lists every missing required value at once', async () => {
    const { token, ids } = await formDocument();
    const res = await complete(token, { values: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const paths = res.body.error.details.map((d: any) => d.path).sort();
    expect(paths).toEqual(
      ['body.signature', `body.values.${ids.date}`, `body.values.${ids.dropdown}`].sort(),
    );
  });

  it('refuses a bad value for each type', async () => {
    const { token, ids } = await formDocument();
    const base = { [ids.date]: '2026-12-01', [ids.dropdown]: 'Pro' };
    const cases: [string, unknown][] = [
      [ids.date, '2026-02-30'],
      [ids.date, 'next tuesday'],
      [ids.number, 'twelve'],
      [ids.number, '12abc'],
      [ids.checkbox, 'yes'],
      [ids.dropdown, 'Enterprise'],
      [ids.radio, 'Maybe'],
      [ids.email, 'not-an-address'],
      ['fld_not_mine', 'x'],
    ];
    for (const [id, value] of cases) {
      const res = await complete(token, { values: { ...base, [id]: value }, signature: typed() });
      expect(res.status, `${id}=${String(value)}`).toBe(400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain(`body.values.${id}`);
    }
    const badSignatures = [
      { kind: 'typed', value: '   ' },
      { kind: 'typed', value: 'x'.repeat(201) },
      { kind: 'drawn', value: 'data:image/jpeg;base64,/9j/4AAQ' },
      {
        kind: 'drawn',
        value: `data:image/png;base64,${Buffer.from('GIF89a not a png at all, really not').toString('base64')}`,
      },
      { kind: 'drawn', value: `data:image/png;base64,${'A'.repeat(1024 * 1024)}` },
    ];
    for (const signature of badSignatures) {
      const res = await complete(token, { values: base, signature });
      expect(res.status, JSON.stringify(signature).slice(0, 60)).toBe(400);
    }
    // Nothing was stored by the refused attempts.
    expect((await get(token)).body.data.signer.status).toBe('viewed');
  });

  it('stores normalised values for every type', async () => {
    const { token, ids, doc } = await formDocument();
    const res = await complete(token, {
      values: {
        [ids.date]: '2026-12-01',
        [ids.number]: '42.50',
        [ids.checkbox]: true,
        [ids.dropdown]: 'Pro',
        [ids.radio]: 'No',
        [ids.email]: 'ada@example.test',
        [ids.text]: 'Notes',
      },
      signature: typed('  Ada  '),
    });
    expect(res.status).toBe(200);
    const fields = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.fields;
    const byType = Object.fromEntries(fields.map((f: any) => [f.type, f.value]));
    expect(byType).toEqual({
      signature: 'Ada',
      date: '2026-12-01',
      number: '42.5',
      checkbox: 'true',
      dropdown: 'Pro',
      radio: 'No',
      email: 'ada@example.test',
      text: 'Notes',
    });
  });
});

describe('decline', () => {
  it('declines the document, cancels the others, tells everyone and the sender', async () => {
    const a = address('decliner');
    const b = address('other');
    const c = address('copy');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Dee', email: a },
        { name: 'Other', email: b },
        { name: 'Copy', email: c, role: 'cc' },
      ],
    });
    const token = latestToken(t, a);
    expect((await decline(token, '')).status).toBe(400);
    expect((await decline(token, 'x'.repeat(1001))).status).toBe(400);
    const res = await decline(token, 'The fee is wrong');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      documentId: doc.id,
      signerId: doc.signers[0].id,
      status: 'declined',
      documentStatus: 'declined',
      redirectUrl: null,
    });
    await t.settle();

    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('declined');
    expect(detail.signers.map((s: any) => s.status)).toEqual([
      'declined',
      'cancelled',
      'cancelled',
    ]);
    expect(t.sink.to(b).at(-1)!.subject).toContain('declined');
    expect(t.sink.to(c).at(-1)!.subject).toContain('declined');
    const admin = t.sink.to('admin@acme.test').find((m) => m.subject.includes('declined'))!;
    expect(admin.text).toContain('The fee is wrong');
    const actions = await auditActions(t, doc.id);
    expect(actions).toEqual(expect.arrayContaining(['signer.declined', 'document.declined']));
    const events = await eventTypes(t);
    expect(events).toEqual(expect.arrayContaining(['signer.declined', 'document.declined']));

    // Every link of the document is now refused.
    for (const tk of [token, latestToken(t, b)]) {
      const again = await get(tk);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state');
    }
    expect((await decline(token, 'again')).status).toBe(409);
  });
});

describe('finished signers and documents', () => {
  it('refuses a used token (signer completed) and a cancelled document', async () => {
    const a = address('used');
    const b = address('later');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Used', email: a },
        { name: 'Later', email: b },
      ],
    });
    const token = latestToken(t, a);
    expect((await complete(token, { values: {}, signature: typed() })).status).toBe(200);
    for (const res of [
      await get(token),
      await complete(token, { values: {}, signature: typed() }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'invalid_state',
        message: 'You have already signed this document',
      });
    }
    await t.settle();
    const tokenB = latestToken(t, b);
    expect((await get(tokenB)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/documents/${doc.id}/cancel`)).status).toBe(200);
    const res = await complete(tokenB, { values: {}, signature: typed() });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe('The sender cancelled this document');
    expect((await t.request('GET', `/api/v1/signing/${tokenB}/file`, { key: null })).status).toBe(
      409,
    );
  });
});

describe('POST /api/v1/documents/{id}/signers/{signerId}/link', () => {
  it('returns a fresh link that works beside the emailed one', async () => {
    const a = address('embed');
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Em', email: a },
        { name: 'Cc', email: address('cc'), role: 'cc' },
      ],
    });
    const res = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.url).toMatch(/^http:\/\/localhost:3000\/sign\/[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(res.body.data.expiresAt) - t.clock.now().getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const embedded = res.body.data.url.split('/sign/')[1];
    expect((await get(embedded)).status).toBe(200);
    expect((await get(latestToken(t, a))).status).toBe(200);
    expect(await auditActions(t, doc.id)).toContain('signer.link_created');

    const cc = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[1].id}/link`,
    );
    expect(cc.status).toBe(409);
    const scoped = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`,
      { key: await t.keyWith(['documents.read']) },
    );
    expect(scoped.status).toBe(403);
    expect(
      (await t.request('POST', `/api/v1/documents/${doc.id}/signers/sgn_nope/link`)).status,
    ).toBe(404);
    const other = await t.newOrg('Other');
    expect(
      (
        await t.request('POST', `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`, {
          key: other.key,
        })
      ).status,
    ).toBe(404);

    await complete(embedded, { values: {}, signature: typed() });
    expect(
      (await t.request('POST', `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`))
        .status,
    ).toBe(409);
  });

  it('caps the link at the document expiry and refuses a draft', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 3 * 86_400_000).toISOString();
    const doc = await sentDocument(t, {
      signers: [{ name: 'Ex', email: address('exp') }],
      body: { expiresAt },
    });
    const res = await t.request(
      'POST',
      `/api/v1/documents/${doc.id}/signers/${doc.signers[0].id}/link`,
    );
    expect(res.body.data.expiresAt).toBe(expiresAt);
    const draft = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Draft', signers: [{ name: 'D', email: address('d') }] },
    });
    const signerId = (await t.request('GET', `/api/v1/documents/${draft.body.data.id}`)).body.data
      .signers[0].id;
    expect(
      (await t.request('POST', `/api/v1/documents/${draft.body.data.id}/signers/${signerId}/link`))
        .status,
    ).toBe(409);
  });
});
