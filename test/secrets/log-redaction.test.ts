import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/log-redaction.ts';
import { api, childEnv, serve, terminate, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';
import { waitFor } from '../webhooks/support.ts';

/*
 * A whole signing flow against a real server process logging every request (LOG_LEVEL=info):
 * upload URL, signing page and API, the emailed download link, the API key, a webhook secret.
 * None of those credentials may appear anywhere in what the process printed.
 */

let database: TestDatabase;
let server: ChildServer;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  server = await serve(
    childEnv({
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://localhost:3000',
      // Every signed copy is mailed as a download link (a token in a URL) instead of an attachment.
      MAIL_ATTACHMENT_MAX_BYTES: '1',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    }),
  );
  key = /^\s+(sk_\S+)$/m.exec(server.output())![1];
}, 60_000);
afterAll(async () => {
  if (server) await terminate(server);
  await database?.drop();
});

/** Every link of the spooled mails (no SMTP_URL: mail is written under DATA_DIR/mail). */
async function mailedLinks(): Promise<string[]> {
  const dir = path.join(database.dataDir, 'mail');
  const files = await readdir(dir).catch(() => [] as string[]);
  const links: string[] = [];
  for (const f of files) {
    const text = (await readFile(path.join(dir, f), 'utf8')).replace(/=\r?\n/g, '');
    for (const m of text.matchAll(/http:\/\/localhost:3000\/[^\s"<>]+/g)) links.push(m[0]);
  }
  return [...new Set(links)];
}
const local = (link: string) => link.replace('http://localhost:3000', server.url);

describe('request logs carry no token', () => {
  it('redactUrl replaces each kind of token', () => {
    expect(redactUrl('/sign/abc123?x=1')).toBe('/sign/[redacted]?x=1');
    expect(redactUrl('/api/v1/signing/abc/complete')).toBe('/api/v1/signing/[redacted]/complete');
    expect(redactUrl('/uploads/aaa.bbb')).toBe('/uploads/[redacted]');
    expect(redactUrl('/build/abc?embed=1')).toBe('/build/[redacted]?embed=1');
    expect(redactUrl('/api/v1/build/abc/fields')).toBe('/api/v1/build/[redacted]/fields');
    expect(redactUrl('/c/my-form-abc123/secret-part')).toBe('/c/my-form-abc123/[redacted]');
    expect(redactUrl('/c/my-form-abc123')).toBe('/c/my-form-abc123');
    expect(redactUrl('/x?token=t1&a=b&X-Amz-Signature=s')).toBe(
      '/x?token=[redacted]&a=b&X-Amz-Signature=[redacted]',
    );
    expect(redactUrl('/api/v1/documents/doc_1')).toBe('/api/v1/documents/doc_1');
  });

  it('a whole flow, grepped: no API key, upload token, signing or download token, webhook secret', async () => {
    const secrets: string[] = [key];
    const hook = await api(server, key, 'POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['document.completed'],
    });
    expect(hook.status).toBe(201);
    secrets.push(hook.body.data.secret);
    const rotated = await api(
      server,
      key,
      'POST',
      `/api/v1/webhooks/${hook.body.data.id}/rotate-secret`,
    );
    secrets.push(rotated.body.data.secret);

    const created = await api(server, key, 'POST', '/api/v1/documents', {
      name: 'Lease',
      signers: [{ name: 'Ada', email: 'ada@example.test' }],
      fields: [field({ assignedTo: 0, required: true })],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const ticket = (
      await api(server, key, 'POST', `/api/v1/documents/${id}/upload`, {
        contentType: 'application/pdf',
      })
    ).body.data;
    secrets.push(new URL(ticket.uploadUrl).pathname.split('/').at(-1)!);
    const put = await fetch(local(ticket.uploadUrl), {
      method: 'PUT',
      headers: ticket.headers,
      body: new Uint8Array(await samplePdf(1)),
    });
    expect(put.status).toBe(200);
    expect((await api(server, key, 'POST', `/api/v1/documents/${id}/send`)).status).toBe(200);

    const signLink = await waitFor(
      async () => (await mailedLinks()).find((l) => l.includes('/sign/')),
      'the invitation',
      15_000,
    );
    const token = signLink.split('/sign/')[1];
    secrets.push(token);
    expect((await fetch(local(signLink))).status).toBe(200);
    expect((await api(server, null, 'GET', `/api/v1/signing/${token}`)).status).toBe(200);
    const embedded = await api(
      server,
      key,
      'POST',
      `/api/v1/documents/${id}/signers/${created.body.data.signers?.[0]?.id ?? (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data.signers[0].id}/link`,
    );
    secrets.push(embedded.body.data.url.split('/sign/')[1]);
    const done = await api(server, null, 'POST', `/api/v1/signing/${token}/complete`, {
      values: {},
      signature: { kind: 'typed', value: 'Ada' },
    });
    expect(done.status).toBe(200);

    // A builder link, its page and its API.
    const draft = await api(server, key, 'POST', '/api/v1/documents', { name: 'Draft' });
    const builder = await api(
      server,
      key,
      'POST',
      `/api/v1/documents/${draft.body.data.id}/builder-link`,
    );
    const builderToken = builder.body.data.url.split('/build/')[1];
    secrets.push(builderToken);
    expect((await fetch(local(builder.body.data.url))).status).toBe(200);
    expect((await api(server, null, 'GET', `/api/v1/build/${builderToken}`)).status).toBe(200);

    const download = await waitFor(
      async () => (await mailedLinks()).find((l) => l.includes('/file')),
      'the download link',
      30_000,
    );
    secrets.push(download.split('/api/v1/signing/')[1].split('/')[0]);
    const file = await fetch(local(download));
    expect(file.status).toBe(200);
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // The bootstrap key is printed once to the terminal on first start, by design; everything else counts.
    const log = server.output().replace(`\n    ${key}\n`, '\n');
    // The requests were logged (the grep below is not vacuous) …
    expect(log).toContain('/sign/[redacted]');
    expect(log).toContain('/api/v1/signing/[redacted]');
    expect(log).toContain('/uploads/[redacted]');
    expect(log).toContain('/build/[redacted]');
    expect(log).toContain('/api/v1/build/[redacted]');
    // … and no credential is anywhere in the output.
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(15);
      expect(log.includes(secret), `a credential (${secret.slice(0, 4)}…) is in the log`).toBe(
        false,
      );
    }
  }, 90_000);
});
