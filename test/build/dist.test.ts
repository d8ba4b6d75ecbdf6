import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/child-server.ts';
import { samplePdf } from '../helpers/factories.ts';

/*
 * What runs is dist/, built from src/ by scripts/build.js: these tests run it without the
 * sources (as the container image does) and check that a clone never runs a stale build.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const dirs: string[] = [];
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** The Dockerfile's final stage: its COPY lines (source, destination, stage) and its exec-form CMD. */
function runtimeStage() {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n');
  const stage = lines.slice(lines.map((l) => /^FROM\s/.test(l)).lastIndexOf(true));
  const copies = stage
    .filter((l) => /^COPY\s/.test(l))
    .map((l) => {
      const words = l.trim().split(/\s+/).slice(1);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const [source, destination] = words.filter((w) => !w.startsWith('--'));
      return { from, source, destination };
    });
  const cmd = stage.find((l) => /^CMD\s*\[/.test(l)) ?? '';
  return { copies, cmd: JSON.parse(cmd.replace(/^CMD\s*/, '')) as string[] };
}

/** Runs a command to its end: exit code and both outputs. */
function run(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: os.tmpdir() },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the container image', () => {
  it('is built on a Node.js version that package.json says is tested', () => {
    const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const majors = [...text.matchAll(/^FROM node:(\d+)-/gm)].map((m) => m[1]);
    expect(majors.length).toBeGreaterThan(0);
    const engines = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines
      .node as string;
    for (const major of majors) expect(engines).toMatch(new RegExp(`\\^${major}\\.`));
  });

  it('runs the built JavaScript alone: /healthz, /docs with the package version, the signing page files, and a PDF read by its worker thread', async () => {
    const { copies, cmd } = runtimeStage();
    // The image as its final stage lays it out under /app; the other stages' outputs are the
    // ones this clone has (node_modules from npm install, dist/ from the build).
    const app = tempDir('signet-image-');
    for (const { from, source, destination } of copies) {
      const target = path.join(app, destination.endsWith('/') ? '' : destination);
      const local = from
        ? path.join(ROOT, source.replace(/^\/app\//, ''))
        : path.join(ROOT, source);
      if (path.basename(local) === 'node_modules') fs.symlinkSync(local, target);
      else
        fs.cpSync(local, fs.statSync(local).isDirectory() ? target : path.join(target, source), {
          recursive: true,
        });
    }
    expect(fs.readdirSync(app).sort()).toEqual(['bin', 'dist', 'node_modules', 'package.json']);

    const port = await freePort();
    const dataDir = tempDir('signet-image-data-');
    expect(cmd[0]).toBe('node');
    const child = spawn(process.execPath, cmd.slice(1), {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the image's CMD exited:\n${output}`);
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 600) throw new Error(`no /healthz after 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(output).not.toContain('built dist/');
    const key = /sk_[A-Za-z0-9_-]{43}/.exec(output)?.[0];
    expect(key, output).toBeTruthy();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const doc = await (await fetch(`${base}/openapi.json`)).json();
    expect(doc.info.version).toBe(VERSION);

    // The signing page's own files, read from dist/web/client/.
    const page = await (await fetch(`${base}/sign/not-a-real-link-but-a-page`)).text();
    const assets = [...page.matchAll(/\/assets\/app\/[^"']+/g)].map((m) => m[0]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);

    // A template's PDF is counted by the intake worker thread, which loads dist/pdf/worker-host.js.
    const created = await fetch(`${base}/api/v1/templates`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Built', roles: [{ name: 'Signer' }] }),
    });
    expect(created.status).toBe(201);
    const id = (await created.json()).data.id;
    const upload = await fetch(`${base}/api/v1/templates/${id}/upload`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ filename: 'three.pdf', contentType: 'application/pdf' }),
    });
    const { uploadUrl } = (await upload.json()).data;
    const put = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: new Uint8Array(await samplePdf(3)),
    });
    expect(put.status, await put.text()).toBeLessThan(300);
    const template = await (
      await fetch(`${base}/api/v1/templates/${id}`, { headers: auth })
    ).json();
    expect(template.data.pageCount).toBe(3);
  }, 120_000);
});

describe('bin/signet.js in a clone', () => {
  it('builds dist/ when there is none, not again while it is current, again after a source changes, and drops what a removed source had built', () => {
    const clone = tempDir('signet-clone-');
    for (const f of ['bin', 'scripts/build.js', 'src', 'tsconfig.json', 'package.json'])
      fs.cpSync(path.join(ROOT, f), path.join(clone, f), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));

    const first = run(clone, ['bin/signet.js', '--help']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Usage: signet');
    expect(first.stderr).toMatch(/built dist\/ from src\//);
    expect(fs.readdirSync(path.join(clone, 'dist', 'web', 'client'))).toContain('favicon.svg');

    const again = run(clone, ['bin/signet.js', '--help']);
    expect(again.stderr).toBe('');

    // A pull that changes a source: the next command runs the new code.
    const cli = path.join(clone, 'src/cli.ts');
    fs.writeFileSync(
      cli,
      fs.readFileSync(cli, 'utf8').replace('Usage: signet', 'Usage (changed): signet'),
    );
    const changed = run(clone, ['bin/signet.js', '--help']);
    expect(changed.stderr).toMatch(/built dist\/ from src\//);
    expect(changed.stdout).toContain('Usage (changed): signet');

    // A pull that adds a file and a later one that removes it.
    fs.writeFileSync(path.join(clone, 'src/extra.ts'), 'export const extra = 1;\n');
    run(clone, ['bin/signet.js', '--help']);
    expect(fs.existsSync(path.join(clone, 'dist/extra.js'))).toBe(true);
    fs.rmSync(path.join(clone, 'src/extra.ts'));
    const removed = run(clone, ['bin/signet.js', '--help']);
    expect(removed.stderr).toMatch(/built dist\/ from src\//);
    expect(fs.existsSync(path.join(clone, 'dist/extra.js'))).toBe(false);
  }, 120_000);
});
