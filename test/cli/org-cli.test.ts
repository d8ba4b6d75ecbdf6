import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  newInstallation,
  runCli,
  startServe,
  type Installation,
} from './run-cli.ts';

// The real `bin/signet.js` in a child process, on a fresh installation, as a newcomer runs it.
const installations: Installation[] = [];
async function install(): Promise<Installation> {
  const inst = await newInstallation();
  installations.push(inst);
  return inst;
}
afterAll(async () => {
  killLeftovers();
  for (const inst of installations) await inst.remove();
});

const KEY = /sk_[A-Za-z0-9_-]{43}/;
const json = (stdout: string) => JSON.parse(stdout);

describe('signet org list / org update / key create without --org', () => {
  it('renames the bootstrap organization, brands it, and replaces its lost key in one command', async () => {
    const inst = await install();
    const server = await startServe(inst);
    const bootstrapKey = server.output().stdout.match(KEY)![0];
    // One line for the person at the terminal: where it runs and where the reference is.
    const port = new URL(server.url).port;
    const startLine = `Signet is running at http://localhost:${port} (API reference: http://localhost:${port}/docs)\n`;
    for (let i = 0; i < 100 && !server.output().stdout.includes(startLine); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(server.output().stdout).toContain(startLine);
    await server.stop();

    const list = await runCli(inst, ['org', 'list', '--json']);
    expect(list.code).toBe(0);
    const [org] = json(list.stdout).data;
    expect(org).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Default' });
    expect((await runCli(inst, ['org', 'list'])).stdout).toContain(`${org.id}  Default`);

    const logo = path.join(inst.dataDir, 'logo.png');
    fs.writeFileSync(
      logo,
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    );
    const updated = await runCli(inst, [
      'org',
      'update',
      '--name',
      'Acme Consulting',
      '--brand-color',
      '#0F766E',
      '--reply-to',
      'hi@acme.example',
      '--logo',
      logo,
      '--json',
    ]);
    expect(updated.stderr).toBe('');
    expect(json(updated.stdout)).toMatchObject({
      id: org.id,
      name: 'Acme Consulting',
      brandColor: '#0F766E',
      replyTo: 'hi@acme.example',
      logoUrl: expect.stringContaining(`/logos/${org.id}?v=`),
    });

    // Lost the key printed on first start: one command revokes it and prints a new one with the same scopes.
    const replaced = await runCli(inst, ['key', 'create', '--replace', 'bootstrap', '--json']);
    expect(replaced.stderr).toBe('');
    const fresh = json(replaced.stdout);
    expect(fresh).toMatchObject({
      orgId: org.id,
      name: 'bootstrap',
      key: expect.stringMatching(KEY),
      revoked: [expect.stringMatching(/^key_/)],
    });
    expect(fresh.scopes).toContain('organization.write');

    const again = await startServe(inst);
    try {
      const get = (key: string) =>
        fetch(`${again.url}/api/v1/organization`, { headers: { authorization: `Bearer ${key}` } });
      expect((await get(bootstrapKey)).status).toBe(401);
      const res = await get(fresh.key);
      expect(res.status).toBe(200);
      expect((await res.json()).data.name).toBe('Acme Consulting');
    } finally {
      await again.stop();
    }

    // Without --org while there is one organization; then refused once there are two.
    const plain = await runCli(inst, ['key', 'create', '--scopes', 'documents.read', '--json']);
    expect(json(plain.stdout)).toMatchObject({ orgId: org.id, scopes: ['documents.read'] });
    await runCli(inst, ['org', 'create', '--name', 'Globex', '--admin-email', 'a@globex.test']);
    const ambiguous = await runCli(inst, ['key', 'create', '--scopes', 'all']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('choose one with --org');
  }, 180_000);

  it('refuses bad flags with a plain message and changes nothing', async () => {
    const inst = await install();
    await runCli(inst, ['org', 'create', '--name', 'Acme', '--admin-email', 'a@acme.test']);
    for (const args of [
      ['--brand-color', 'teal'],
      ['--reply-to', 'nope'],
      ['--name', '  '],
      ['--logo', '/etc/hostname'],
      [],
    ]) {
      const res = await runCli(inst, ['org', 'update', ...args]);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(/^signet: /);
    }
    expect(json((await runCli(inst, ['org', 'list', '--json'])).stdout).data[0]).toMatchObject({
      name: 'Acme',
    });
    const noSuch = await runCli(inst, ['key', 'create', '--replace', 'key_nope']);
    expect(noSuch.code).toBe(2);
    expect(noSuch.stderr).toContain('No active key key_nope');
  }, 180_000);
});
