import { spawnSync, spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePdf } from '../helpers/factories.ts';
import {
  killLeftovers,
  newInstallation,
  startServe,
  type Installation,
  type RunningServer,
} from '../cli/run-cli.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

/*
 * The README's blocks marked `<!-- readme-test: NAME -->` are run as written with bash and curl
 * against a real `signet serve` (its bootstrap key, its mail spool), from a directory holding a
 * PDF made here, with only the placeholders replaced: http://localhost:3000 by the server's
 * address and sk_… by its key.
 */
const README = fs.readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'),
  'utf8',
);
const hasTools =
  spawnSync('bash', ['-c', 'command -v curl && command -v node'], { encoding: 'utf8' }).status ===
  0;
const NO_TOOLS =
  'README tests skipped: bash and curl are needed to run the README as written (apt-get install -y curl)';
if (!hasTools) console.warn(NO_TOOLS);

/** The shell block right after the marker `<!-- readme-test: name -->`. */
function block(name: string): string {
  const match = new RegExp(`<!-- readme-test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(
    README,
  );
  if (!match) throw new Error(`README has no block marked readme-test: ${name}`);
  return match[1];
}

/** The TypeScript block after `<!-- readme-test-ts: name -->` (run) or `<!-- readme-typecheck: name -->` (type-checked only). */
function tsBlock(marker: 'readme-test-ts' | 'readme-typecheck', name: string): string {
  const match = new RegExp(`<!-- ${marker}: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(
    README,
  );
  if (!match) throw new Error(`README has no TypeScript block marked ${marker}: ${name}`);
  return match[1];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const requireHere = createRequire(import.meta.url);

/** Node with TypeScript types stripped by tsx, `@signet/client` mapped to clients/typescript (tsconfig `paths`). */
function runNode(dir: string, file: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const tsx = pathToFileURL(requireHere.resolve('tsx')).href;
    const child = spawn(process.execPath, ['--import', tsx, file], {
      cwd: work,
      env: {
        PATH: process.env.PATH,
        HOME: work,
        TSX_TSCONFIG_PATH: path.join(dir, 'tsconfig.json'),
        ...env,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(
              `README TypeScript block failed (${code}):\n--- stdout\n${out}\n--- stderr\n${err}`,
            ),
          ),
    );
  });
}

/**
 * The README's TypeScript blocks as a project of their own: `@signet/client` resolves to this
 * repository's clients/typescript (as an installed package would), strict type-checking with tsc.
 */
function tsProject(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(work, 'ts-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        paths: { '@signet/client': [path.join(ROOT, 'clients/typescript/src/index.ts')] },
      },
      include: Object.keys(files),
    }),
  );
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

let inst: Installation;
let server: RunningServer;
let work: string;
let key: string;
let base: string;
let receiver: Receiver;
/** The README's example webhook URL; the tests put a real receiver on 127.0.0.1 in its place. */
const HOOK_URL = 'https://hooks.example.com/signet';

/** Runs README blocks in one bash, in the work directory; fails on the first failing command. */
function run(script: string, env: Record<string, string> = {}): Promise<string> {
  const text = script
    .replaceAll('http://localhost:3000', base)
    .replaceAll('sk_…', key)
    .replaceAll(HOOK_URL, `${receiver.url}/signet`);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${text}`], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(
              `README block failed (${code}):\n${text}\n--- stdout\n${out}\n--- stderr\n${err}`,
            ),
          ),
    );
  });
}

/** The lines of the walk-through before its step 1: the server, the key, `auth` and `json`. */
const preamble = () => block('walkthrough').split('# 1.')[0];

const api = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: res.status,
    body: (res.headers.get('content-type') ?? '').includes('json')
      ? await res.json()
      : await res.text(),
  };
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
    receiver = await startReceiver();
    server = await startServe(inst, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    key = /sk_[A-Za-z0-9_-]{43}/.exec(server.output().stdout)![0];
    base = `http://localhost:${new URL(server.url).port}`;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    killLeftovers();
    await inst?.remove();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('walk-through: create, upload, signer and field, send, the link from the spooled mail; signed through the signing API; follow and download the signed PDF', async () => {
    const out0 = await run(`${block('walkthrough')}\necho "DOC=$DOC"`);
    const doc = /DOC=(doc_\w+)$/m.exec(out0)![1];
    // "A moment later": the mail worker writes the invitation to the spool.
    const spool = path.join(inst.dataDir, 'mail');
    const written = () =>
      fs.existsSync(spool) &&
      fs
        .readdirSync(spool)
        .some(
          (f) =>
            f.endsWith('.eml') && fs.readFileSync(path.join(spool, f), 'utf8').includes('\n-- \n'),
        );
    for (let i = 0; i < 300 && !written(); i++) await new Promise((r) => setTimeout(r, 100));
    const out = await run(block('signing-link'));
    const link = new RegExp(`^${base}/sign/([A-Za-z0-9_-]{20,})$`, 'm').exec(out);
    expect(
      link,
      `the signing link printed by step 5:\n${JSON.stringify(out)} ${JSON.stringify(fs.readdirSync(spool))}`,
    ).toBeTruthy();
    const detail = (await api('GET', `/api/v1/documents/${doc}`)).body.data;
    expect(detail).toMatchObject({
      name: 'Consulting agreement',
      status: 'pending',
      signers: [{ email: 'ada@example.com', status: 'sent' }],
    });

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

    // Verifying the signed PDF, as the Verification section shows.
    const report = JSON.parse(await run(`${preamble()}\n${block('verify')}`)).data;
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({ valid: true });
    expect(report.document).toMatchObject({ id: doc, status: 'completed' });

    // Catching up on what happened, as the Webhooks section shows.
    const events = JSON.parse(await run(`${preamble()}\n${block('events')}`));
    expect(
      events.data.map((e: { event: string; data: { id: string } }) => [e.event, e.data.id]),
    ).toContainEqual(['document.completed', doc]);
  }, 180_000);

  it('walk-through with the TypeScript client: its blocks type-check; run as written, the document is out for signature', async () => {
    const walkthrough = tsBlock('readme-test-ts', 'walkthrough').replaceAll(
      'http://localhost:3000',
      base,
    );
    const dir = tsProject({
      'walkthrough.ts': walkthrough,
      'receiver.ts': tsBlock('readme-typecheck', 'receiver'),
    });
    const tsc = spawnSync(
      process.execPath,
      [requireHere.resolve('typescript/bin/tsc'), '-p', dir],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(tsc.status, `tsc on the README's TypeScript blocks:\n${tsc.stdout}${tsc.stderr}`).toBe(
      0,
    );

    const out = await runNode(dir, path.join(dir, 'walkthrough.ts'), { SIGNET_KEY: key });
    const [, doc, status] = /^(doc_\w+) (\w+)$/m.exec(out) ?? [];
    expect(status, out).toBe('pending');
    const detail = (await api('GET', `/api/v1/documents/${doc}`)).body.data;
    expect(detail).toMatchObject({
      name: 'Consulting agreement',
      status: 'pending',
      signers: [{ email: 'ada@example.com', status: 'sent' }],
    });
    expect(detail.fields).toMatchObject([{ type: 'signature', page: 1 }]);
    expect(detail.documentHash).toBe(
      createHash('sha256')
        .update(fs.readFileSync(path.join(work, 'agreement.pdf')))
        .digest('hex'),
    );
  }, 180_000);

  it('cancel: a second document sent with the walk-through, then cancelled', async () => {
    const out = await run(`${block('walkthrough')}\n${block('cancel')}\necho "DOC=$DOC"`);
    const doc = /DOC=(doc_\w+)$/m.exec(out)![1];
    expect((await api('GET', `/api/v1/documents/${doc}`)).body.data.status).toBe('cancelled');
  }, 120_000);

  it('organization: rename and brand it', async () => {
    await run(`${preamble()}\n${block('organization')}`);
    expect((await api('GET', '/api/v1/organization')).body.data).toMatchObject({
      name: 'Acme Consulting',
      brandColor: '#0F766E',
      replyTo: 'contracts@acme.example',
    });
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
    expect((await pub.json()).data).toMatchObject({
      welcomeTitle: 'Join our volunteers',
      collectPhone: false,
    });
  }, 60_000);

  it('webhook: registered as written; the answer carries the secret its deliveries are signed with', async () => {
    const created = JSON.parse(await run(`${preamble()}\n${block('webhook')}`)).data;
    expect(created).toMatchObject({ url: `${receiver.url}/signet`, status: 'active' });
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await api('POST', `/api/v1/webhooks/${created.id}/test`)).status).toBe(202);
    const until = Date.now() + 30_000;
    while (!receiver.received.some((r) => r.path.endsWith('/signet')) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    const delivery = receiver.received.find((r) => r.path.endsWith('/signet'))!;
    expect(delivery, 'a delivery of the test event').toBeTruthy();
    const ts = String(delivery.headers['x-service-timestamp']);
    const want =
      'sha256=' +
      createHmac('sha256', created.secret).update(`${ts}.${delivery.body}`).digest('hex');
    expect(delivery.headers['x-service-signature']).toBe(want);
  }, 60_000);
});

describe('the README code blocks', () => {
  it('are each run by a test here, or labelled as not run', () => {
    const lines = README.split('\n');
    const unlabelled: string[] = [];
    const names = new Set<string>();
    lines.forEach((line, i) => {
      if (!/^```(sh|bash|js|ts|typescript|javascript)\b/.test(line)) return;
      const marker =
        /^<!-- ((?:readme-test|readme-test-ts|readme-typecheck): ([\w-]+)|recipe: .+|not run .+) -->$/.exec(
          lines[i - 1] ?? '',
        );
      if (!marker) unlabelled.push(`line ${i + 1}: ${line}`);
      else if (marker[2]) names.add(marker[2]);
    });
    expect(unlabelled).toEqual([]);
    // Every marked block is one this file runs.
    const source = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8');
    for (const name of names)
      expect(source, `a README test runs the block ${name}`).toMatch(
        new RegExp(`[bB]lock\\((?:'[\\w-]+', )?['"]${name}['"]\\)`),
      );
  });
});
