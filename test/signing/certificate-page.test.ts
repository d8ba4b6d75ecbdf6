import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasQpdf } from '../pdf/independent-checks.ts';
import { hasPoppler, signaturePngDataUrl } from '../pdf/pdf-helpers.ts';
import {
  address,
  latestToken,
  sentDocument,
  signingApp,
  typed,
  type SigningTest,
} from './setup.ts';
import { operatorsPdf } from '../files/tagged-pdfs.ts';

/*
 * The certificate page of a sealed document, read back with poppler (pdftotext, pdfimages) and
 * qpdf: timeline from the audit log, each signer's signature, the original's SHA-256, the last
 * page's size, where to verify it, and the same content as JSON embedded in the PDF.
 */
const ready = hasPoppler && hasQpdf;
if (!ready)
  console.warn(
    'certificate page tests skipped: needs pdftotext/pdfimages (poppler-utils) and qpdf',
  );

let t: SigningTest;
let dir: string;

beforeAll(async () => {
  t = await signingApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-certpage-'));
});
afterAll(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

const tool = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};

describe.skipIf(!ready)('certificate page', () => {
  it('carries the timeline, signatures, hashes, page size and verification URL, and the same as embedded JSON', async () => {
    const [ada, bob] = [address('ada'), address('bob')];
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Ada Lovelace', email: ada },
        { name: 'Bob Stone', email: bob },
      ],
    });
    const drawn = await signaturePngDataUrl();
    const sign = async (email: string, signature: unknown) => {
      expect(
        (await t.request('GET', `/api/v1/signing/${latestToken(t, email)}`, { key: null })).status,
      ).toBe(200);
      return t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
        key: null,
        body: { values: {}, signature },
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
    };
    expect((await sign(ada, typed('Ada Lovelace'))).status).toBe(200);
    expect((await sign(bob, { kind: 'drawn', value: drawn })).status).toBe(200);
    await t.settle();
    const detail = (await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data;
    expect(detail.status).toBe('completed');
    const file = path.join(dir, 'signed.pdf');
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    await writeFile(file, download.rawPayload);

    // The original has 2 pages; the certificate starts on page 3.
    const text = tool('pdftotext', ['-f', '3', '-layout', file, '-']).replace(/[ \t]+/g, ' ');
    expect(text).toContain(`Original SHA-256 ${detail.documentHash}`);
    expect(text).toContain('Last page size 595 x 842 pt (210 x 297 mm)');
    expect(text).toContain(`Verify this file http://localhost:3000/verify (document ${doc.id})`);
    expect(text).toContain('Timeline (UTC)');
    for (const event of ['Created', 'Sent', 'Viewed', 'Signed']) expect(text).toContain(event);
    expect(text).toContain('Signature');
    expect(text).toContain('Ada Lovelace');
    // Bob's drawn signature is an image on the certificate page.
    expect(tool('pdfimages', ['-f', '3', '-list', file])).toMatch(/\n\s*3\s+\d+\s+(image|smask)/);

    expect(tool('qpdf', ['--list-attachments', file])).toContain('signet-evidence.json');
    const evidence = JSON.parse(tool('qpdf', ['--show-attachment=signet-evidence.json', file]));
    expect(evidence).toMatchObject({
      format: 'signet-evidence/1',
      document: {
        id: doc.id,
        name: 'Service agreement',
        originalSha256: detail.documentHash,
        lastPageSize: '595 x 842 pt (210 x 297 mm)',
        verifyUrl: 'http://localhost:3000/verify',
      },
      signers: [
        { name: 'Ada Lovelace', email: ada, signature: 'Ada Lovelace' },
        { name: 'Bob Stone', email: bob },
      ],
    });
    expect(evidence.signers[1].signature).toMatch(/^data:image\/png;base64,/);
    const events = evidence.timeline.map((e: { event: string }) => e.event.split(':')[0]);
    expect(events).toEqual(expect.arrayContaining(['Created', 'Sent', 'Viewed', 'Signed']));
    expect(
      evidence.timeline.find((e: { event: string }) => e.event.startsWith('Signed')),
    ).toMatchObject({ at: expect.stringMatching(/Z$/) });

    // The file specification says what the attachment is to the document.
    const spec = tool('qpdf', ['--list-attachments', '--verbose', file]);
    expect(spec).toMatch(/AFRelationship|Data|signet-evidence/);
    const catalogNum = /\/Root (\d+) 0 R/.exec(tool('qpdf', ['--show-object=trailer', file]))![1];
    const catalog = tool('qpdf', [`--show-object=${catalogNum}`, file]);
    const afRef = /\/AF \[ (\d+) 0 R \]/.exec(catalog)![1];
    expect(tool('qpdf', [`--show-object=${afRef}`, file])).toContain('/AFRelationship /Data');
    // Still one valid signature over the whole file.
    expect(tool('pdfsig', [file])).toContain('Signature is Valid');
  });

  it('names how each signer proved access: the link, an access code, an emailed code', async () => {
    const [ada, bob] = [address('ada-code'), address('bob-link')];
    const doc = await sentDocument(t, {
      signers: [
        { name: 'Ada Lovelace', email: ada, accessCode: 'harbor-42' },
        { name: 'Bob Stone', email: bob },
      ],
      body: { signingType: 'parallel' },
    });
    const adaToken = latestToken(t, ada);
    const session = (
      await t.request('POST', `/api/v1/signing/${adaToken}/access`, {
        key: null,
        body: { accessCode: 'harbor-42' },
      })
    ).body.data.session;
    for (const [token, headers] of [
      [adaToken, { 'x-signing-session': session }],
      [latestToken(t, bob), {}],
    ] as const) {
      const res = await t.request('POST', `/api/v1/signing/${token}/complete`, {
        key: null,
        body: { values: {}, signature: typed('Signer') },
        headers,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await t.settle();
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    const file = path.join(dir, 'access-code.pdf');
    await writeFile(file, download.rawPayload);
    const text = tool('pdftotext', ['-f', '3', '-layout', file, '-']).replace(/\s+/g, ' ');
    expect(text).toContain(
      'Authentication Signing link sent by email and access code given by the sender',
    );
    const evidence = JSON.parse(tool('qpdf', ['--show-attachment=signet-evidence.json', file]));
    expect(evidence.signers.map((s: { authentication: string[] }) => s.authentication)).toEqual([
      ['email_link', 'access_code'],
      ['email_link'],
    ]);
  });
  it("quotes each signer's consent: when, the text's locale and SHA-256, and the short text", async () => {
    const consentText = 'Paper copies: ask us at any time.\n\nYou may withdraw before signing.';
    const org = (body: Record<string, unknown>) =>
      t.request('PATCH', '/api/v1/organization', { body });
    expect((await org({ requireConsent: true, consentText: { en: consentText } })).status).toBe(
      200,
    );
    try {
      const ada = address('ada-consent');
      const doc = await sentDocument(t, { signers: [{ name: 'Ada Lovelace', email: ada }] });
      const res = await t.request('POST', `/api/v1/signing/${latestToken(t, ada)}/complete`, {
        key: null,
        body: { values: {}, signature: typed('Signer'), consent: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await t.settle();
      const download = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${doc.id}/download`,
        headers: { authorization: `Bearer ${t.key}` },
      });
      const file = path.join(dir, 'consent.pdf');
      await writeFile(file, download.rawPayload);
      const text = tool('pdftotext', ['-layout', file, '-']).replace(/\s+/g, ' ');
      const sha256 = createHash('sha256').update(consentText, 'utf8').digest('hex');
      expect(text).toContain('Consent to electronic records Accepted');
      expect(text).toContain(`text in en, SHA-256 ${sha256.slice(0, 16)}`);
      expect(text).toContain(
        'Consent text Paper copies: ask us at any time. You may withdraw before signing.',
      );
    } finally {
      await org({ requireConsent: false, consentText: null });
    }
  });

  it('records the SHA-256 of the file signers saw beside the original’s when text tags were removed', async () => {
    const ada = address('ada-tags');
    const created = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Tagged agreement', signers: [{ name: 'Ada Lovelace', email: ada }] },
    });
    const id = created.body.data.id as string;
    const ticket = await t.request('POST', `/api/v1/documents/${id}/upload`, {
      body: { textTags: true },
    });
    const original = operatorsPdf();
    const put = await t.app.inject({
      method: 'PUT',
      url: new URL(ticket.body.data.uploadUrl).pathname,
      headers: { 'content-type': 'application/pdf' },
      payload: original,
    });
    expect(put.statusCode, put.body).toBe(200);
    const fields = (await t.request('GET', `/api/v1/documents/${id}`)).body.data.fields;
    // The tags name signers 1 and 2: the document has one, so signer 2's tags made no field.
    expect(fields.map((f: { type: string }) => f.type)).toEqual(['initials']);
    const shown = (await t.request('GET', `/api/v1/documents/${id}/download`)).raw.rawPayload;
    expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
    await t.settle();
    const token = latestToken(t, ada);
    expect((await t.request('GET', `/api/v1/signing/${token}`, { key: null })).status).toBe(200);
    const done = await t.request('POST', `/api/v1/signing/${token}/complete`, {
      key: null,
      body: { values: {}, signature: typed('Ada Lovelace') },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await t.settle();
    const file = path.join(dir, 'tagged-signed.pdf');
    const signed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    await writeFile(file, signed.rawPayload);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const text = tool('pdftotext', ['-layout', file, '-']).replace(/[ \t]+/g, ' ');
    expect(text).toContain(`Original SHA-256 ${sha(original)}`);
    expect(text).toContain(`SHA-256 without tags ${sha(shown)}`);
    expect(text).not.toContain('{{');
    const evidence = JSON.parse(tool('qpdf', ['--show-attachment=signet-evidence.json', file]));
    expect(evidence.document).toMatchObject({
      originalSha256: sha(original),
      shownSha256: sha(shown),
    });
  });
});
