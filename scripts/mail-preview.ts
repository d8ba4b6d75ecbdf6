/**
 * `npm run mail:preview [-- DIR] [--png] [--locale=xx]`: renders every mail Signet sends, for a
 * sample organization and document, into DIR (default ./mail-preview) as HTML files (and
 * plain-text .txt files beside them), to look at in a browser, in the signer's language `xx`
 * (default en). `--png` also screenshots each one with Debian's Chromium (the images in
 * docs/mail/ come from this: `docs/mail` in English, `docs/mail/de` and `docs/mail/ar`).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DocumentRow, SignerRow } from '../src/db/database.ts';
import { renderMailHtml, renderMailText, type MailBrand } from '../src/mail/layout.ts';
import * as mails from '../src/mail/templates.ts';

const args = process.argv.slice(2);
const dir = path.resolve(args.find((a) => !a.startsWith('--')) ?? 'mail-preview');
const png = args.includes('--png');
const locale = args.find((a) => a.startsWith('--locale='))?.slice('--locale='.length) ?? 'en';

const brand: MailBrand = { name: 'Acme Consulting', brandColor: '#0F766E', logoUrl: null };
const link = 'https://sign.acme.example/sign/q3Jx0w8Vt2mYp5LrA9sKd1FhG7zNc4bE6uWoTiXyR0M';
// Only the columns the templates read matter; the rest are there to be a whole row.
const doc = {
  id: 'doc_01jdx3m4n5p6q7r8s9t0v1w2x3',
  org_id: 'org_sample',
  name: 'Consulting agreement',
  message: 'Please sign by Friday. Call me with any question.',
  email_subject: null,
  email_message: null,
  expires_at: '2026-12-01T12:00:00.000Z',
} as unknown as DocumentRow;
const signer = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  role: 'signer',
  locale,
} as unknown as SignerRow;

const samples: Record<string, mails.OutgoingMail> = {
  invitation: mails.invitationMail({ doc, signer, orgName: brand.name, yourTurn: true, link }),
  'your-turn': mails.yourTurnMail({ doc, signer, orgName: brand.name, link }),
  reminder: mails.reminderMail({ doc, signer, orgName: brand.name, link }),
  otp: mails.otpMail({ doc, signer, code: '482913', minutes: 10 }),
  completed: mails.completedMail({ doc, recipient: signer, orgName: brand.name }),
  cancelled: mails.cancellationMail({ doc, signer, orgName: brand.name }),
  declined: mails.declinedMail({
    doc,
    recipient: signer,
    decliner: { ...signer, name: 'Grace Hopper' },
    orgName: brand.name,
  }),
  expired: mails.expiredMail({ doc, recipient: signer, orgName: brand.name }),
};

await fs.mkdir(dir, { recursive: true });
const written: string[] = [];
for (const [name, mail] of Object.entries(samples)) {
  const file = path.join(dir, `${name}.html`);
  await fs.writeFile(file, await renderMailHtml(mail.subject, mail.content, brand));
  await fs.writeFile(
    path.join(dir, `${name}.txt`),
    `Subject: ${mail.subject}\n\n${renderMailText(mail.content, brand.name)}`,
  );
  written.push(file);
}
console.log(`Wrote ${written.length} mails to ${dir}: ${Object.keys(samples).join(', ')}`);

if (png) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = await browser.newPage({
    viewport: { width: 640, height: 600 },
    deviceScaleFactor: 1,
  });
  for (const file of written) {
    await page.goto(`file://${file}`);
    await page.screenshot({ path: file.replace(/\.html$/, '.png'), fullPage: true });
  }
  await browser.close();
  console.log('and a .png of each');
}
