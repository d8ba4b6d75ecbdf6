import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Installation,
  killLeftovers,
  newInstallation,
  type RunningServer,
  startServe,
} from '../cli/run-cli.ts';
import { samplePdf } from '../helpers/factories.ts';
import { type Receiver, startReceiver } from '../webhooks/support.ts';

/*
 * The blocks of the README and of every docs/*.md page marked `<!-- readme-test: NAME -->` are
 * run as written with bash and curl against a real `signet serve` (its bootstrap key, its mail
 * spool), from a directory holding a PDF made here, with only the placeholders replaced:
 * http://localhost:3000 by the server's address and sk_… by its key.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const TEXTS = new Map(PAGES.map((page) => [page, fs.readFileSync(path.join(ROOT, page), 'utf8')]));
const hasTools =
  spawnSync('bash', ['-c', 'command -v curl && command -v node'], { encoding: 'utf8' }).status ===
  0;
const NO_TOOLS =
  'README tests skipped: bash and curl are needed to run the README as written (apt-get install -y curl)';
if (!hasTools) console.warn(NO_TOOLS);

/** The one block, on any of the pages, of language `lang` right after `<!-- marker: name -->`. */
function marked(marker: string, lang: string, name: string): string {
  const pattern = new RegExp(`<!-- ${marker}: ${name} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``);
  const found = [...TEXTS.values()].flatMap((text) => pattern.exec(text)?.[1] ?? []);
  if (found.length !== 1)
    throw new Error(
      `${found.length} ${lang} blocks marked ${marker}: ${name} in ${PAGES.join(', ')}`,
    );
  return found[0];
}

/** The shell block right after the marker `<!-- readme-test: name -->`. */
const block = (name: string) => marked('readme-test', 'sh', name);

/** The TypeScript block after `<!-- readme-test-ts: name -->` (run) or `<!-- readme-typecheck: name -->` (type-checked only). */
const tsBlock = (marker: 'readme-test-ts' | 'readme-typecheck', name: string) =>
  marked(marker, 'ts', name);

const requireHere = createRequire(import.meta.url);

const TSX_CLI = requireHere.resolve('tsx/cli');
const TSC = requireHere.resolve('typescript/bin/tsc');

/**
 * npm as the README's install block runs it, without the network when its cache has the
 * packages (it does after this repository's own `npm install`): the cache of the npm that runs
 * the tests, not one under the tests' temporary HOME.
 */
const NPM_ENV = {
  npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'),
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
};

let inst: Installation;
let server: RunningServer;
let work: string;
let key: string;
let base: string;
let receiver: Receiver;
/** The README's example webhook URL; the tests put a real receiver on 127.0.0.1 in its place. */
const HOOK_URL = 'https://hooks.example.com/signet';

/** Runs blocks in one bash (in the work directory unless `cwd`), stopping at the first failing command. */
function run(
  script: string,
  env: Record<string, string> = {},
  cwd: string = work,
): Promise<string> {
  const text = script
    .replaceAll('http://localhost:3000', base)
    .replaceAll('sk_…', key)
    .replaceAll(HOOK_URL, `${receiver.url}/signet`);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${text}`], {
      cwd,
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
            Object.assign(
              new Error(
                `README block failed (${code}):\n${text}\n--- stdout\n${out}\n--- stderr\n${err}`,
              ),
              { stdout: out, stderr: err },
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

/** Waits until the spool holds `count` whole mails (the text part's signature line written). */
async function waitForMails(count: number) {
  const spool = path.join(inst.dataDir, 'mail');
  const whole = () =>
    fs.existsSync(spool)
      ? fs
          .readdirSync(spool)
          .filter(
            (f) =>
              f.endsWith('.eml') &&
              fs.readFileSync(path.join(spool, f), 'utf8').includes('\n-- \n'),
          ).length
      : 0;
  for (let i = 0; i < 300 && whole() < count; i++) await new Promise((r) => setTimeout(r, 100));
  expect(whole(), `${count} mails in ${spool}`).toBeGreaterThanOrEqual(count);
}

/**
 * The TypeScript client's section, as a newcomer follows it: a new application (`npm init -y`,
 * so CommonJS), the client packed from this repository and installed into it, the walk-through
 * saved as walkthrough.mts beside agreement.pdf, type-checked with the receiver outline, and run.
 */
async function typescriptWalkthrough(): Promise<string> {
  const app = fs.mkdtempSync(path.join(work, 'your-app-'));
  await run('npm init -y >/dev/null', NPM_ENV, app);
  await run(block('client-install').replaceAll('../your-app', app), NPM_ENV, ROOT);
  fs.copyFileSync(path.join(work, 'agreement.pdf'), path.join(app, 'agreement.pdf'));
  fs.writeFileSync(
    path.join(app, 'walkthrough.mts'),
    tsBlock('readme-test-ts', 'walkthrough').replaceAll('http://localhost:3000', base),
  );
  fs.writeFileSync(path.join(app, 'receiver.ts'), tsBlock('readme-typecheck', 'receiver'));
  fs.writeFileSync(
    path.join(app, 'tsconfig.json'),
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
      },
      include: ['walkthrough.mts', 'receiver.ts'],
    }),
  );
  const tsc = spawnSync(process.execPath, [TSC, '-p', app], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(tsc.status, `tsc on the README's TypeScript blocks:\n${tsc.stdout}${tsc.stderr}`).toBe(0);
  // `npx tsx`, with this repository's tsx rather than one npx would fetch.
  const command = block('client-run').replace('npx tsx', `node ${JSON.stringify(TSX_CLI)}`);
  return run(command, {}, app);
}

describe.skipIf(!hasTools)(
  'the README and the docs pages, run as written against a real server',
  () => {
    beforeAll(async () => {
      inst = await newInstallation();
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-readme-'));
      fs.symlinkSync(inst.dataDir, path.join(work, 'data'));
      fs.writeFileSync(
        path.join(work, 'agreement.pdf'),
        await samplePdf(1, 'Consulting agreement'),
      );
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

    it('walk-through: create, upload, signer and field, send; the same with the TypeScript client, installed and run as written; the link of the first from the spooled mail; signed through the signing API; follow and download the signed PDF', async () => {
      const out0 = await run(`${block('walkthrough')}\necho "DOC=$DOC"`);
      const doc = /DOC=(doc_\w+)$/m.exec(out0)![1];
      // Each answer on its own line: the upload's, the signer's, the field's, the send's.
      const answers = out0.trim().split('\n').slice(0, -1);
      expect(answers, out0).toHaveLength(4);
      for (const answer of answers) expect(JSON.parse(answer), answer).toHaveProperty('data');
      // "A moment later": the mail worker writes the invitation to the spool.
      await waitForMails(1);

      // The TypeScript walk-through sends a second document, to another signer, so the newest
      // mail is its invitation, not the first document's.
      const out = await typescriptWalkthrough();
      const [, tsDoc, status] = /^(doc_\w+) (\w+)$/m.exec(out) ?? [];
      expect(status, out).toBe('pending');
      const tsDetail = (await api('GET', `/api/v1/documents/${tsDoc}`)).body.data;
      expect(tsDetail).toMatchObject({
        name: 'Consulting agreement',
        status: 'pending',
        signers: [{ email: 'grace@example.com', status: 'sent' }],
      });
      expect(tsDetail.fields).toMatchObject([{ type: 'signature', page: 1 }]);
      expect(tsDetail.documentHash).toBe(
        createHash('sha256')
          .update(fs.readFileSync(path.join(work, 'agreement.pdf')))
          .digest('hex'),
      );
      await waitForMails(2);

      const linkOut = await run(block('signing-link'));
      const link = new RegExp(`^${base}/sign/([A-Za-z0-9_-]{20,})$`, 'm').exec(linkOut);
      expect(link, `the signing link printed by step 5:\n${JSON.stringify(linkOut)}`).toBeTruthy();
      const detail = (await api('GET', `/api/v1/documents/${doc}`)).body.data;
      expect(detail).toMatchObject({
        name: 'Consulting agreement',
        status: 'pending',
        signers: [{ email: 'ada@example.com', status: 'sent' }],
      });

      // The signer signs (what the signing page does, through the same API), on the link of the
      // walk-through's document.
      const token = link![1];
      const session = await fetch(`${server.url}/api/v1/signing/${token}`);
      expect(session.status).toBe(200);
      expect((await session.json()).data.document.id).toBe(doc);
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
    }, 240_000);

    it('walk-through with a wrong key: step 1 prints Signet’s answer (unauthorized), not a stack trace, and nothing runs after it', async () => {
      const wrongKey = block('walkthrough').replaceAll('sk_…', `sk_${'x'.repeat(43)}`);
      const failed = await run(`${wrongKey}\necho "reached the end"`).then(
        () => ({ stdout: 'the block succeeded', stderr: '' }),
        (err: { stdout: string; stderr: string }) => err,
      );
      expect(failed.stderr).toMatch(/^Signet: unauthorized: .+$/m);
      expect(failed.stderr).not.toMatch(/^\s+at /m);
      expect(failed.stdout).toBe('');
    }, 60_000);

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

    it('campaign: template, upload, fields, campaign, each answer on its own line; its url serves the public page', async () => {
      const out = await run(`${preamble()}\n${block('campaign')}`);
      const lines = out.trim().split('\n');
      expect(lines, out).toHaveLength(2);
      expect(JSON.parse(lines[0]).data, 'the upload answer').toBeTruthy();
      const url = lines[1];
      expect(url).toMatch(new RegExp(`^${base}/c/volunteers-2026-[a-z0-9]{6}$`));
      const slug = url.split('/c/')[1];
      const page = await fetch(`${server.url}/c/${slug}`);
      expect(page.status).toBe(200);
      const pub = await fetch(`${server.url}/api/v1/public/campaigns/${slug}`);
      expect(pub.status).toBe(200);
      expect((await pub.json()).data).toMatchObject({
        welcomeTitle: 'Join our volunteers',
        collectPhone: false,
      });
    }, 60_000);

    it('webhook: registered as the README and docs/webhooks.md write it; the answer carries the secret its deliveries are signed with', async () => {
      const fromDocs = JSON.parse(await run(`${preamble()}\n${block('webhook-register')}`)).data;
      expect(fromDocs).toMatchObject({ url: `${receiver.url}/signet`, description: 'CRM sync' });
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
  },
);

describe('the code blocks of the README and the docs pages', () => {
  it('are each run by a test here, or labelled as not run', () => {
    const unlabelled: string[] = [];
    const names = new Set<string>();
    for (const [page, text] of TEXTS) {
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        if (!/^```(sh|bash|js|ts|typescript|javascript)\b/.test(line)) return;
        const marker =
          /^<!-- ((?:readme-test|readme-test-ts|readme-typecheck): ([\w-]+)|recipe: .+|not run .+) -->$/.exec(
            lines[i - 1] ?? '',
          );
        if (!marker) unlabelled.push(`${page} line ${i + 1}: ${line}`);
        else if (marker[2]) names.add(marker[2]);
      });
    }
    expect(unlabelled).toEqual([]);
    // Every marked block is one a test runs: this file, or the test of what the block needs
    // (test/backup/move.test.ts runs the move to PostgreSQL, which needs a database server).
    const source = [fileURLToPath(import.meta.url), path.join(ROOT, 'test/backup/move.test.ts')]
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    for (const name of names)
      expect(source, `a README test runs the block ${name}`).toMatch(
        new RegExp(`[bB]lock\\((?:'[\\w-]+', )?['"]${name}['"]\\)`),
      );
  });
});
