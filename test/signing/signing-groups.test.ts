import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchedulers } from '../../src/jobs/schedulers.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';
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

/*
 * Signing groups (README "Signing groups"): in a sequential document the signers sharing a `group`
 * sign in any order among themselves, and the next group's turn starts once each has finished.
 */

let t: SigningTest;
beforeAll(async () => {
  t = await signingApp();
});
afterAll(async () => {
  await t.stop();
});

const DAY = 24 * 3_600_000;
const get = (token: string) => t.request('GET', `/api/v1/signing/${token}`, { key: null });
const complete = (token: string, name: string) =>
  t.request('POST', `/api/v1/signing/${token}/complete`, {
    key: null,
    body: { values: {}, signature: typed(name) },
  });
const turnMails = (email: string) =>
  t.sink.to(email).filter((m) => m.subject.includes('Your turn'));
const signersOf = async (id: string) =>
  (await t.request('GET', `/api/v1/documents/${id}`)).body.data.signers as any[];

describe('sequential documents with signing groups', () => {
  it('two managers of group 1 sign in either order, both mailed at once; the director of group 2 waits for both', async () => {
    const [employee, m1, m2, director] = ['emp', 'mgr1', 'mgr2', 'dir'].map(address);
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Employee', email: employee, group: 0 },
        { name: 'Manager One', email: m1, group: 1 },
        { name: 'Manager Two', email: m2, group: 1 },
        { name: 'Director', email: director, group: 2 },
      ],
    });
    expect((await signersOf(doc.id)).map((s) => [s.order, s.group, s.status])).toEqual([
      [0, 0, 'sent'],
      [1, 1, 'pending'],
      [2, 1, 'pending'],
      [3, 2, 'pending'],
    ]);

    // A member of group 1 cannot sign before group 0 is done: the same refusal as any early signer.
    const early = await complete(latestToken(t, m1), 'Manager One');
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('not_your_turn');
    expect(early.body.error.message).toContain('Employee');
    const session = (await get(latestToken(t, m2))).body.data;
    expect(session.isYourTurn).toBe(false);
    expect(session.signer).toMatchObject({ order: 2, group: 1 });
    expect(session.recipients.map((r: any) => r.group)).toEqual([0, 1, 1, 2]);

    expect((await complete(latestToken(t, employee), 'Employee')).status).toBe(200);
    await t.settle();
    // Every member of the next group gets a "your turn" mail, and both may sign now.
    expect(turnMails(m1)).toHaveLength(1);
    expect(turnMails(m2)).toHaveLength(1);
    expect(turnMails(director)).toHaveLength(0);
    expect((await get(latestToken(t, m1))).body.data.isYourTurn).toBe(true);
    expect((await get(latestToken(t, m2))).body.data.isYourTurn).toBe(true);
    expect((await get(latestToken(t, director))).body.data.isYourTurn).toBe(false);

    // The second manager (higher order) signs first; the director still waits for the other one.
    expect((await complete(latestToken(t, m2), 'Manager Two')).status).toBe(200);
    await t.settle();
    expect(turnMails(director)).toHaveLength(0);
    expect(turnMails(m1)).toHaveLength(1);
    const waiting = await complete(latestToken(t, director), 'Director');
    expect(waiting.status).toBe(409);
    expect(waiting.body.error.code).toBe('not_your_turn');
    expect(waiting.body.error.message).toContain('Manager One');

    expect((await complete(latestToken(t, m1), 'Manager One')).status).toBe(200);
    await t.settle();
    expect(turnMails(director)).toHaveLength(1);
    const last = await complete(latestToken(t, director), 'Director');
    expect(last.status).toBe(200);
    expect(last.body.data.allSigned).toBe(true);
    const actions = await auditActions(t, doc.id);
    expect(actions.filter((a) => a === 'signer.notified')).toHaveLength(3);
  });

  it('the first group is invited together at send, and reminders go to every member whose turn it is', async () => {
    const [a, b, c] = ['first-a', 'first-b', 'later-c'].map(address);
    await sentDocument(t, {
      signers: [
        { name: 'A', email: a, group: 5 },
        { name: 'B', email: b, group: 5 },
        { name: 'C', email: c, group: 7 },
      ],
      body: { reminderFrequency: 'daily' },
    });
    expect(t.sink.to(a)[0].text).not.toContain('Other signers come before you');
    expect(t.sink.to(b)[0].text).not.toContain('Other signers come before you');
    expect(t.sink.to(c)[0].text).toContain('Other signers come before you');
    expect((await get(latestToken(t, b))).body.data.isYourTurn).toBe(true);

    t.clock.advance(DAY + 60_000);
    await runSchedulers(t.app.deps);
    await t.settle();
    const reminders = (email: string) =>
      t.sink.to(email).filter((m) => m.subject.startsWith('Reminder'));
    expect(reminders(a)).toHaveLength(1);
    expect(reminders(b)).toHaveLength(1);
    expect(reminders(c)).toHaveLength(0);
  });

  it('without groups the order alone sets the turns, as before', async () => {
    const [a, b] = ['plain-a', 'plain-b'].map(address);
    const doc = await sentDocument(t, {
      signers: [
        { name: 'A', email: a },
        { name: 'B', email: b },
      ],
    });
    expect((await signersOf(doc.id)).map((s) => s.group)).toEqual([0, 1]);
    expect((await complete(latestToken(t, b), 'B')).body.error.code).toBe('not_your_turn');
  });

  it('parallel documents ignore groups', async () => {
    const [a, b] = ['par-a', 'par-b'].map(address);
    await sentDocument(t, {
      signers: [
        { name: 'A', email: a, group: 1 },
        { name: 'B', email: b, group: 0 },
      ],
      body: { signingType: 'parallel' },
    });
    expect((await complete(latestToken(t, a), 'A')).status).toBe(200);
  });
});

describe('group on the signers API', () => {
  it('takes group on create and update (null: back to the order), a draft only', async () => {
    const created = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Groups', signers: [{ name: 'A', email: address('api-a') }] },
    });
    const id = created.body.data.id;
    const added = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'B', email: address('api-b'), group: 0 },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ order: 1, group: 0 });
    const bad = await t.request('POST', `/api/v1/documents/${id}/signers`, {
      body: { name: 'C', email: address('api-c'), group: -1 },
    });
    expect(bad.status).toBe(400);

    const moved = await t.request(
      'PATCH',
      `/api/v1/documents/${id}/signers/${added.body.data.id}`,
      {
        body: { group: 4 },
      },
    );
    expect(moved.status).toBe(200);
    expect(moved.body.data.group).toBe(4);
    expect(await auditActions(t, id)).toContain('signer.updated');
    const reset = await t.request(
      'PATCH',
      `/api/v1/documents/${id}/signers/${added.body.data.id}`,
      {
        body: { group: null },
      },
    );
    expect(reset.body.data.group).toBe(1);
    const list = await t.request('GET', `/api/v1/documents/${id}/signers`);
    expect(list.body.data.map((s: any) => s.group)).toEqual([0, 1]);

    await t.request('POST', `/api/v1/documents/${id}/fields`, {
      body: field({ assignedTo: 0 }),
    });
    await attachPdf(t, id);
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    const late = await t.request('PATCH', `/api/v1/documents/${id}/signers/${added.body.data.id}`, {
      body: { group: 0 },
    });
    expect(late.status).toBe(409);
  });
});

describe('template role groups', () => {
  it('carry over to documents made from the template, fixed and named signers alike', async () => {
    const tpl = await createTemplate(t, {
      name: 'Approval',
      roles: [
        { name: 'Requester' },
        { name: 'Finance', group: 1 },
        { name: 'Legal', group: 1, signerEmail: address('legal') },
        { name: 'CEO' },
      ],
      fields: [0, 1, 2, 3].map((assignedTo) => field({ assignedTo, y: 10 + assignedTo * 10 })),
    });
    await giveTemplateFile(t, tpl);
    const roles = (await t.request('GET', `/api/v1/templates/${tpl}/roles`)).body.data;
    expect(roles.map((r: any) => [r.name, r.order, r.group])).toEqual([
      ['Requester', 0, 0],
      ['Finance', 1, 1],
      ['Legal', 2, 1],
      ['CEO', 3, 3],
    ]);
    const ceoRole = roles[3].id;
    const patched = await t.request('PATCH', `/api/v1/templates/${tpl}/roles/${ceoRole}`, {
      body: { group: 9 },
    });
    expect(patched.body.data).toMatchObject({ order: 3, group: 9 });
    const unpatched = await t.request('PATCH', `/api/v1/templates/${tpl}/roles/${ceoRole}`, {
      body: { group: null },
    });
    expect(unpatched.body.data).toMatchObject({ order: 3, group: 3 });
    const [req, fin, ceo] = ['req', 'fin', 'ceo'].map(address);
    const created = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Purchase',
        templateId: tpl,
        signers: [
          { name: 'Req', email: req },
          { name: 'Fin', email: fin },
          { name: 'Ceo', email: ceo, order: 3 },
        ],
      },
    });
    expect(created.status).toBe(201);
    const signers = await signersOf(created.body.data.id);
    expect(signers.map((s) => [s.name, s.order, s.group])).toEqual([
      ['Req', 0, 0],
      ['Fin', 1, 1],
      ['Legal', 2, 1],
      ['Ceo', 3, 3],
    ]);
  });

  it('carry over to the documents of a bulk send', async () => {
    const tpl = await createTemplate(t, {
      name: 'Bulk approval',
      roles: [
        { name: 'Client', group: 0 },
        { name: 'Partner', group: 0 },
        { name: 'Witness', signerEmail: address('bulk-witness') },
      ],
      fields: [0, 1, 2].map((assignedTo) => field({ assignedTo, y: 10 + assignedTo * 10 })),
    });
    await giveTemplateFile(t, tpl);
    const [client, partner] = ['bulk-client', 'bulk-partner'].map(address);
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: tpl,
        name: 'Pairs',
        rows: [
          {
            signers: [
              { role: 'Client', name: 'Client', email: client },
              { role: 'Partner', name: 'Partner', email: partner },
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(202);
    await t.settle();
    const docs = await t.request('GET', `/api/v1/documents?bulkSendId=${res.body.data.id}`);
    expect(docs.body.data).toHaveLength(1);
    const signers = await signersOf(docs.body.data[0].id);
    expect(signers.map((s) => [s.order, s.group, s.status])).toEqual([
      [0, 0, 'sent'],
      [1, 0, 'sent'],
      [2, 2, 'pending'],
    ]);
    // Both members of the first group are invited to sign now.
    expect((await get(latestToken(t, client))).body.data.isYourTurn).toBe(true);
    expect((await get(latestToken(t, partner))).body.data.isYourTurn).toBe(true);
  });
});

describe('campaign roles with groups', () => {
  // With identity review the visitor signs later, at the link of the answer.
  const submit = (slug: string, email: string) =>
    t.request('POST', `/api/v1/public/campaigns/${slug}/submissions`, {
      key: null,
      body: { name: 'Ann', email },
    });
  const campaignTemplate = async (roles: Record<string, unknown>[]) => {
    const tpl = await createTemplate(t, {
      roles,
      fields: [field(), field({ assignedTo: 1, y: 60 })],
    });
    await giveTemplateFile(t, tpl);
    return tpl;
  };

  it("a later role in the visitor's group is invited with the visitor, even while the visitor's identity awaits review", async () => {
    const mia = address('mia');
    const tpl = await campaignTemplate([
      { name: 'Applicant' },
      { name: 'Manager', signerName: 'Mia', signerEmail: mia, group: 0 },
    ]);
    const c = await t.request('POST', '/api/v1/campaigns', {
      body: { name: 'Pairs', templateId: tpl, requireKyc: true, collectPhone: false },
    });
    expect(c.status).toBe(201);
    const res = await submit(c.body.data.slug, address('ann'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await t.settle();
    expect((await signersOf(res.body.data.id)).map((s) => [s.order, s.group, s.status])).toEqual([
      [0, 0, 'sent'],
      [1, 0, 'sent'],
    ]);
    expect(turnMails(mia)).toHaveLength(1);
  });

  it("refuses a template whose later role would sign before the visitor's (409 invalid_state)", async () => {
    const tpl = await campaignTemplate([
      { name: 'Applicant', group: 2 },
      { name: 'Manager', signerEmail: address('early'), group: 1 },
    ]);
    const c = await t.request('POST', '/api/v1/campaigns', {
      body: { name: 'Backwards', templateId: tpl },
    });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('invalid_state');
    expect(c.body.error.message).toContain('Manager');
  });
});
