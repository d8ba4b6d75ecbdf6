import { describe, expect, it } from 'vitest';
import type { DocumentRow, SignerRow } from '../../src/db/database.ts';
import { renderMailHtml } from '../../src/mail/layout.ts';
import { invitationMail } from '../../src/mail/templates.ts';

/**
 * A mail in a right-to-left language is laid out right to left: its columns run right to left,
 * its text starts on the right (the header and the button too), and what the sender wrote
 * (in whatever language) keeps its own direction.
 */

const doc = {
  id: 'doc_x',
  org_id: 'org_x',
  name: 'Consulting agreement',
  message: 'Please sign by Friday.',
  email_subject: null,
  email_message: null,
  expires_at: null,
} as unknown as DocumentRow;
const brand = { name: 'Acme', brandColor: '#0F766E', logoUrl: null };

async function invitationHtml(locale: string): Promise<string> {
  const signer = {
    name: 'Ada',
    email: 'ada@example.com',
    role: 'signer',
    locale,
  } as unknown as SignerRow;
  const mail = invitationMail({
    doc,
    signer,
    orgName: 'Acme',
    yourTurn: true,
    link: 'https://x.test/sign/t',
  });
  return renderMailHtml(mail.subject, mail.content, brand);
}

describe('mail direction', () => {
  it('Arabic: columns right to left, text and button on the right, the sender message dir=auto', async () => {
    const out = await invitationHtml('ar');
    expect(out).toMatch(/<html[^>]*dir="rtl"/);
    expect(out).not.toContain('direction:ltr');
    expect(out).toContain('direction:rtl');
    expect(out).not.toMatch(/line-height:1.6;text-align:left/);
    expect(out).toMatch(
      /<td\s+align="right"[^>]*>\s*<table[^>]*>\s*<tbody>\s*<tr>\s*<td[^>]*bgcolor/,
    );
    expect(out).toContain('<div dir="auto">Please sign by Friday.</div>');
  });

  it('English stays left to right', async () => {
    const out = await invitationHtml('en');
    expect(out).not.toContain('direction:rtl');
    expect(out).toMatch(/line-height:1.6;text-align:left/);
  });
});
