/*
 * Builds the upgrade fixtures of test/upgrade/: a database written by a release's own migrations
 * and API, on SQLite and on PostgreSQL, with the answers that release gave.
 *
 *   npm run upgrade:fixtures -- [COMMIT]      (default: the release named in test/upgrade/RELEASE)
 *
 * The release is checked out into a temporary git worktree outside this repository (sharing this
 * clone's node_modules), its `signet serve` started on a fresh SQLite directory and then on a fresh
 * PostgreSQL database (POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test, used as the
 * admin connection), and driven through its API only: documents in every status, a template, a
 * campaign with a submission, a bulk send, webhooks with deliveries made and deliveries queued.
 * Mail goes to an SMTP server of this script's (it reads the signing links from it and refuses
 * bounce@ addresses). Written per database: the database (signet.db, or a plain SQL dump), the
 * stored files, and expected.json (the key, and every answer to compare).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { samplePdf } from '../test/helpers/factories.ts';
import { UPGRADE_SECRET_KEY, answersToRecord } from '../test/upgrade/recorded.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = path.join(ROOT, 'test/upgrade/fixtures');
const commit =
  process.argv[2] ?? fs.readFileSync(path.join(ROOT, 'test/upgrade/RELEASE'), 'utf8').trim();
const adminUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** An SMTP server that keeps every message's text and refuses bounce@… with a permanent 550. */
async function mailSink() {
  const texts: { to: string; text: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('bounce')) return cb(new Error('550 no such user'));
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then((mail) => {
        for (const r of session.envelope.rcptTo)
          texts.push({ to: r.address, text: mail.text ?? '' });
        cb();
      }, cb);
    },
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `smtp://127.0.0.1:${port}`, texts, close: () => server.close() };
}

/** What the script reads of the release's answers. */
interface Answer {
  data: {
    id: string;
    status: string;
    slug: string;
    uploadUrl: string;
    documentHash: string;
    fields: { id: string; type: string }[];
  };
}

interface Release {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function serve(dir: string, env: Record<string, string>): Promise<Release> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dir, 'bin/signet.js'), 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      // The answers name it (campaign links): the test serves them under the same address.
      PUBLIC_URL: 'http://localhost:3000',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the release did not start:\n${out}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  return { url, child, output: () => out };
}

async function stop(server: Release) {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}

async function build(dialect: 'sqlite' | 'postgres', releaseDir: string) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `signet-fixture-${dialect}-`));
  const dataDir = path.join(work, 'data');
  let databaseUrl: string | undefined;
  const dbName = `signet_fixture_${Date.now()}`;
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  const sink = await mailSink();
  const hookPort = await freePort(); // nobody listens: its deliveries stay queued
  const okHook = net.createServer((socket) =>
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')),
  );
  const okPort = await freePort();
  await new Promise<void>((r) => okHook.listen(okPort, '127.0.0.1', r));
  const env = {
    DATA_DIR: dataDir,
    SECRET_KEY: UPGRADE_SECRET_KEY,
    SMTP_URL: sink.url,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '1h',
    SEALING_RETRY_SCHEDULE: '1s',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  let server = await serve(releaseDir, env);
  const key = /sk_[A-Za-z0-9_-]{43}/.exec(server.output())?.[0];
  if (!key) throw new Error(`no bootstrap key printed:\n${server.output()}`);
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as Answer;
    if (res.status >= 300)
      throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const upload = async (kind: 'documents' | 'templates', id: string) => {
    const ticket = await call('POST', `/api/v1/${kind}/${id}/upload`, {
      filename: 'agreement.pdf',
      contentType: 'application/pdf',
    });
    const target = new URL(ticket.data.uploadUrl);
    const res = await fetch(`${server.url}${target.pathname}${target.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: new Uint8Array(await samplePdf(1, `Agreement ${id}`)),
    });
    if (!res.ok) throw new Error(`upload: ${res.status}`);
  };
  const document = async (name: string, email: string, extra: Record<string, unknown> = {}) => {
    const doc = await call('POST', '/api/v1/documents', {
      name,
      signers: [{ name: 'Ada Lovelace', email }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 }],
      ...extra,
    });
    await upload('documents', doc.data.id);
    return doc.data.id as string;
  };
  const tokenFor = async (email: string) => {
    for (let i = 0; i < 300; i++) {
      const mail = [...sink.texts].reverse().find((m) => m.to === email);
      const token = mail && /\/sign\/([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
      if (token) return token;
      await sleep(100);
    }
    throw new Error(`no signing link mailed to ${email}`);
  };
  const waitStatus = async (id: string, status: string) => {
    for (let i = 0; i < 600; i++) {
      if ((await call('GET', `/api/v1/documents/${id}`)).data.status === status) return;
      await sleep(100);
    }
    throw new Error(`${id} did not become ${status}`);
  };

  await call('POST', '/api/v1/webhooks', {
    url: `http://127.0.0.1:${okPort}/hook`,
    events: ['document.sent', 'document.completed'],
    description: 'Delivered',
  });
  await call('POST', '/api/v1/folders', { name: 'Contracts 2026' });
  await call('POST', '/api/v1/documents', { name: 'Draft — not sent yet' });
  const pending = await document('Pending agreement', 'pending@example.test');
  await call('POST', `/api/v1/documents/${pending}/send`);
  const done = await document('Zoë’s signed lease', 'zoe@example.test');
  await call('POST', `/api/v1/documents/${done}/send`);
  await call('POST', `/api/v1/signing/${await tokenFor('zoe@example.test')}/complete`, {
    values: {},
    signature: { kind: 'typed', value: 'Zoë Ng' },
  });
  await waitStatus(done, 'completed');
  const declined = await document('Declined offer', 'declined@example.test');
  await call('POST', `/api/v1/documents/${declined}/send`);
  await call('POST', `/api/v1/signing/${await tokenFor('declined@example.test')}/decline`, {
    reason: 'Wrong amount',
  });
  const cancelled = await document('Cancelled order', 'cancelled@example.test');
  await call('POST', `/api/v1/documents/${cancelled}/send`);
  await call('POST', `/api/v1/documents/${cancelled}/cancel`);
  const bounced = await document('Undeliverable invitation', 'bounce@example.test');
  await call('POST', `/api/v1/documents/${bounced}/send`);
  await waitStatus(bounced, 'action_required');
  const expiring = await document('Expiring quote', 'expiring@example.test', {
    expiresAt: new Date(Date.now() + 4000).toISOString(),
  });
  await call('POST', `/api/v1/documents/${expiring}/send`);

  // A template, a campaign with one submission, a bulk send of two rows.
  const tpl = await call('POST', '/api/v1/templates', {
    name: 'Volunteer agreement',
    roles: [{ name: 'Volunteer' }],
    fields: [
      { type: 'name', page: 1, x: 10, y: 70, width: 40, height: 4, assignedTo: 0 },
      { type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 },
    ],
  });
  await upload('templates', tpl.data.id);
  const campaign = await call('POST', '/api/v1/campaigns', {
    templateId: tpl.data.id,
    name: 'Volunteers 2026',
    welcomeTitle: 'Join our volunteers',
    collectPhone: false,
  });
  await fetch(`${server.url}/api/v1/public/campaigns/${campaign.data.slug}/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Grace Hopper',
      email: 'grace@example.test',
      values: {
        [tpl.data.fields.find((f) => f.type === 'name')?.id ?? '']: 'Grace Hopper',
      },
      signature: { kind: 'typed', value: 'Grace Hopper' },
    }),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`submission: ${r.status} ${await r.text()}`);
  });
  const bulk = await call('POST', '/api/v1/bulk-sends', {
    templateId: tpl.data.id,
    name: 'Spring intake',
    rows: [
      {
        signers: [{ role: 'Volunteer', name: 'Rosalind Franklin', email: 'rosalind@example.test' }],
      },
      {
        signers: [
          { role: 'Volunteer', name: 'Katherine Johnson', email: 'katherine@example.test' },
        ],
      },
    ],
  });
  for (let i = 0; i < 600; i++) {
    if ((await call('GET', `/api/v1/bulk-sends/${bulk.data.id}`)).data.status === 'completed')
      break;
    await sleep(100);
  }
  // Deliveries made by now; from here on, events for a webhook nobody answers stay queued.
  await sleep(2000);
  await call('POST', '/api/v1/webhooks', {
    url: `http://127.0.0.1:${hookPort}/hook`,
    events: ['document.sent', 'document.expired', 'document.cancelled'],
    description: 'Queued',
  });
  await call(
    'POST',
    `/api/v1/documents/${await document('Queued notice', 'queued@example.test')}/send`,
  );

  // The scheduler expires documents on its first pass after a start.
  await sleep(4500);
  await stop(server);
  server = await serve(releaseDir, env);
  await waitStatus(expiring, 'expired');
  await sleep(1500);

  const expected = await answersToRecord(call, (url) =>
    fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) =>
      Buffer.from(await r.arrayBuffer()),
    ),
  );
  await stop(server);
  sink.close();
  okHook.close();

  const out = path.join(OUT, dialect);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.cpSync(path.join(dataDir, 'files'), path.join(out, 'files'), { recursive: true });
  if (dialect === 'sqlite') {
    execFileSync('sqlite3', [path.join(dataDir, 'signet.db'), 'vacuum']);
    fs.copyFileSync(path.join(dataDir, 'signet.db'), path.join(out, 'signet.db'));
  } else {
    const dump = execFileSync(
      'pg_dump',
      ['--inserts', '--no-owner', '--no-privileges', String(databaseUrl)],
      {
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    fs.writeFileSync(path.join(out, 'dump.sql'), dump);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database ${dbName} with (force)`);
    await admin.end();
  }
  fs.writeFileSync(
    path.join(out, 'expected.json'),
    `${JSON.stringify({ release: commit, key, ...expected }, null, 1)}\n`,
  );
  fs.rmSync(work, { recursive: true, force: true });
  console.log(`${dialect}: wrote ${path.relative(ROOT, out)}`);
}

const releaseDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'signet-release-')), 'release');
execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', releaseDir, commit], {
  stdio: 'inherit',
});
try {
  // The release runs on this clone's dependencies (those it declares are a subset of them).
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(releaseDir, 'node_modules'));
  await build('sqlite', releaseDir);
  await build('postgres', releaseDir);
} finally {
  execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', releaseDir]);
}
