import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { runSchedulers } from '../../src/jobs/schedulers.ts';
import type { SinkMessage } from '../helpers/smtp-sink.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from '../signing/setup.ts';

// Every mail goes through nodemailer over SMTP to a real SMTP server and is read back parsed.
let t: SigningTest;
let logoUrl: string;
beforeAll(async () => {
  t = await signingApp();
  const logo = await sharp({
    create: { width: 120, height: 32, channels: 3, background: '#0F766E' },
  })
    .png()
    .toBuffer();
  const org = await t.request('PATCH', '/api/v1/organization', {
    body: {
      name: 'Acme Consulting',
      brandColor: '#0F766E',
      replyTo: 'contracts@acme.example',
      logo: `data:image/png;base64,${logo.toString('base64')}`,
    },
  });
  expect(org.status).toBe(200);
  logoUrl = org.body.data.logoUrl;
});
afterAll(async () => t.close());

const LINK_LINE = /^(http:\/\/localhost:3000\/sign\/[A-Za-z0-9_-]{43})$/m;

/** The look every mail shares: the organization's logo, colour, name and Reply-To, and a text part. */
function expectBranded(mail: SinkMessage) {
  expect(mail.replyTo).toBe('contracts@acme.example');
  expect(mail.html).toContain(`src="${logoUrl.replace(/&/g, '&amp;')}"`);
  expect(mail.html).toContain('border-top:4px solid #0F766E');
  expect(mail.html).toContain('Sent with Signet on behalf of Acme Consulting.');
  expect(mail.html).not.toMatch(/<mj-/); // MJML rendered, not passed through
  expect(mail.text).toMatch(/\n-- \nSent with Signet on behalf of Acme Consulting\.\n$/);
  expect(mail.text).not.toMatch(/<[a-z]/i);
}

/** A button in the organization's colour linking to `url`, and the same link alone on a line of the text part, whole in the raw message too. */
function expectButton(mail: SinkMessage, label: string) {
  const link = LINK_LINE.exec(mail.text)?.[1];
  expect(link, `${mail.subject}: a link alone on its line`).toBeTruthy();
  expect(mail.html).toMatch(
    new RegExp(`<a\\s+href="${link}"[^>]*background:#0F766E[^>]*>[\\s\\S]*?${label}`),
  );
  expect(mail.raw).toContain(link);
  return link!;
}

describe('mail look (HTML from MJML, plain text, organization branding), over SMTP', () => {
  it('invitation, OTP code, completion: one look, a real button, an unbroken link', async () => {
    const email = address('ada');
    await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email }],
      body: { otpMethod: 'email', message: 'Please sign by Friday' },
    });
    const [invite] = t.sink.to(email);
    expect(invite.subject).toBe('Acme Consulting sent you "Service agreement" to sign');
    expectBranded(invite);
    expectButton(invite, 'Sign the document');
    expect(invite.text).toContain('Message from Acme Consulting:\n> Please sign by Friday');
    expect(invite.html).toContain('Please sign by Friday');

    const token = latestToken(t, email);
    expect((await t.request('POST', `/api/v1/signing/${token}/otp`, { key: null })).status).toBe(
      200,
    );
    await t.settle();
    const otp = t.sink.to(email).at(-1)!;
    expectBranded(otp);
    const code = /is (\d{6})\./.exec(otp.text)?.[1];
    expect(code).toBeTruthy();
    expect(otp.html).toMatch(new RegExp(`letter-spacing:8px[^>]*>\\s*${code}`));

    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: {}, signature: typed(), otp: code },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await t.settle();
    await t.settle();
    const completed = await t.sink.waitFor(
      (m) => m.to.includes(email) && /signed by everyone/.test(m.subject),
      30_000,
    );
    expectBranded(completed);
    expect(completed.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
  }, 60_000);

  it('reminder and cancellation look the same', async () => {
    const email = address('grace');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Grace Hopper', email }],
      body: { reminderFrequency: 'daily' },
    });
    t.clock.advance(25 * 3600 * 1000);
    await runSchedulers(t.app.deps);
    await t.settle();
    const reminder = t.sink.to(email).find((m) => m.subject.startsWith('Reminder:'))!;
    expectBranded(reminder);
    expectButton(reminder, 'Sign the document');

    expect((await t.request('POST', `/api/v1/documents/${doc.id}/cancel`)).status).toBe(200);
    await t.settle();
    const cancelled = t.sink.to(email).find((m) => m.subject.endsWith('was cancelled'))!;
    expectBranded(cancelled);
    expect(cancelled.text).toContain(
      'Acme Consulting has cancelled the document "Service agreement".',
    );
  }, 60_000);

  it("an organization without branding gets Signet's colour, its name as the header, no Reply-To", async () => {
    const other = await t.newOrg('Plain Org');
    const email = address('plain');
    const created = await t.request('POST', '/api/v1/documents', {
      key: other.key,
      body: {
        name: 'Plain',
        signers: [{ name: 'Pat', email }],
        fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 }],
      },
    });
    const { attachPdf } = await import('../signing/setup.ts');
    await attachPdf(t, created.body.data.id);
    expect(
      (
        await t.request('POST', `/api/v1/documents/${created.body.data.id}/send`, {
          key: other.key,
        })
      ).status,
    ).toBe(200);
    await t.settle();
    const [mail] = t.sink.to(email);
    expect(mail.replyTo).toBe('');
    expect(mail.html).toContain('border-top:4px solid #4338CA');
    expect(mail.html).toMatch(/color:#4338CA[^>]*>Plain Org</);
    expect(mail.html).toMatch(/background:#4338CA/);
  });
});
