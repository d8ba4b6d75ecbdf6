import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePdf } from '../helpers/factories.ts';
import { killLeftovers, newInstallation, startServe, type Installation, type RunningServer } from '../cli/run-cli.ts';

/*
 * The README's blocks marked `<!-- readme-test: NAME -->` are run as written with bash and curl
 * against a real `signet serve` (its bootstrap key, its mail spool), from a directory holding a
 * PDF made here, with only the placeholders replaced: http://localhost:3000 by the server's
 * address and sk_… by its key.
 */
const README = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');
const hasTools = spawnSync('bash', ['-c', 'command -v curl && command -v node'], { encoding: 'utf8' }).status === 0;
const NO_TOOLS = 'README tests skipped: bash and curl are needed to run the README as written (apt-get install -y curl)';
if (!hasTools) console.warn(NO_TOOLS);

/** The shell block right after the marker `<!-- readme-test: name -->`. */
function block(name: string): string {
  const match = new RegExp(`<!-- readme-test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(README);
  if (!match) throw new Error(`README has no block marked readme-test: ${name}`);
  return match[1];
}

let inst: Installation;
let server: RunningServer;
let work: string;
let key: string;
let base: string;

/** Runs README blocks in one bash, in the work directory; fails on the first failing command. */
function run(script: string, env: Record<string, string> = {}): Promise<string> {
  const text = script.replaceAll('http://localhost:3000', base).replaceAll('sk_…', key);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${text}`], { cwd: work, env: { PATH: process.env.PATH, HOME: work, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`README block failed (${code}):\n${text}\n--- stdout\n${out}\n--- stderr\n${err}`))));
  });
}

/** The lines of the walk-through before its step 1: the server, the key, `auth` and `json`. */
const preamble = () => block('walkthrough').split('# 1.')[0];

const api = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : await res.text() };
};

async function waitForStatus(doc: string, status: string) {
  const until = Date.now() + 60_000;
  for (;;) {
    const current = (await api('GET', `/api/v1/documents/${doc}`)).body.data.status;
    if (current === status) return;
    if (Date.now() > until) throw new Error(`${doc} stayed ${current}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!hasTools)('the README, run as written against a real server', () => {
  beforeAll(async () => {
    inst = await newInstallation();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-readme-'));
    fs.symlinkSync(inst.dataDir, path.join(work, 'data'));
    fs.writeFileSync(path.join(work, 'agreement.pdf'), await samplePdf(1, 'Consulting agreement'));
    server = await startServe(inst);
    key = /sk_[A-Za-z0-9_-]{43}/.exec(server.output().stdout)![0];
    base = `http://localhost:${new URL(server.url).port}`;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    killLeftovers();
    await inst?.remove();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('walk-through: create, upload, signer and field, send, the link from the spooled mail; signed through the signing API; follow and download the signed PDF', async () => {
    const out0 = await run(`${block('walkthrough')}\necho "DOC=$DOC"`);
    const doc = /DOC=(doc_\w+)$/m.exec(out0)![1];
    // "A moment later": the mail worker writes the invitation to the spool.
    const spool = path.join(inst.dataDir, 'mail');
    const written = () => fs.existsSync(spool) && fs.readdirSync(spool).some((f) => f.endsWith('.eml') && fs.readFileSync(path.join(spool, f), 'utf8').includes('\n-- \n'));
    for (let i = 0; i < 300 && !written(); i++) await new Promise((r) => setTimeout(r, 100));
    const out = await run(block("signing-link"));
    const link = new RegExp(`^${base}/sign/([A-Za-z0-9_-]{20,})$`, 'm').exec(out);
    expect(link, `the signing link printed by step 5:\n${JSON.stringify(out)} ${JSON.stringify(fs.readdirSync(spool))}`).toBeTruthy();
    const detail = (await api('GET', `/api/v1/documents/${doc}`)).body.data;
    expect(detail).toMatchObject({ name: 'Consulting agreement', status: 'pending', signers: [{ email: 'ada@example.com', status: 'sent' }] });

    // The signer signs (what the signing page does, through the same API).
    const token = link![1];
    const session = await fetch(`${server.url}/api/v1/signing/${token}`);
    expect(session.status).toBe(200);
    const done = await fetch(`${server.url}/api/v1/signing/${token}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: {}, signature: { kind: 'typed', value: 'Ada Lovelace' } }),
    });
    expect(done.status).toBe(200);
    await waitForStatus(doc, 'completed');

    const followed = await run(`${preamble()}\n${block('follow')}`, { DOC: doc });
    expect(followed).toContain('"document.sent"');
    const signed = fs.readFileSync(path.join(work, 'signed.pdf'));
    expect(signed.subarray(0, 5).toString()).toBe('%PDF-');
    expect(signed.includes(Buffer.from('/ByteRange'))).toBe(true);
    const signedHash = (await api('GET', `/api/v1/documents/${doc}`)).body.data.signedFileHash;
    expect(createHash('sha256').update(signed).digest('hex')).toBe(signedHash);

    // Catching up on what happened, as the Webhooks section shows.
    const events = JSON.parse(await run(`${preamble()}\n${block('events')}`));
    expect(events.data.map((e: { event: string; data: { id: string } }) => [e.event, e.data.id])).toContainEqual(['document.completed', doc]);
  }, 180_000);

  it('cancel: a second document sent with the walk-through, then cancelled', async () => {
    const out = await run(`${block('walkthrough')}\n${block('cancel')}\necho "DOC=$DOC"`);
    const doc = /DOC=(doc_\w+)$/m.exec(out)![1];
    expect((await api('GET', `/api/v1/documents/${doc}`)).body.data.status).toBe('cancelled');
  }, 120_000);

  it('organization: rename and brand it', async () => {
    await run(`${preamble()}\n${block('organization')}`);
    expect((await api('GET', '/api/v1/organization')).body.data).toMatchObject({ name: 'Acme Consulting', brandColor: '#0F766E', replyTo: 'contracts@acme.example' });
  }, 60_000);

  it('campaign: template, upload, fields, campaign; its url serves the public page', async () => {
    const out = await run(`${preamble()}\n${block('campaign')}`);
    const url = /(http:\/\/[^\s"]+\/c\/[a-z0-9-]+)\s*$/.exec(out)?.[1];
    expect(url).toMatch(new RegExp(`^${base}/c/volunteers-2026-[a-z0-9]{6}$`));
    const slug = url!.split('/c/')[1];
    const page = await fetch(`${server.url}/c/${slug}`);
    expect(page.status).toBe(200);
    const pub = await fetch(`${server.url}/api/v1/public/campaigns/${slug}`);
    expect(pub.status).toBe(200);
    expect((await pub.json()).data).toMatchObject({ welcomeTitle: 'Join our volunteers', collectPhone: false });
  }, 60_000);
});
