import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachPdf, latestToken, sentDocument, typed, type SigningTest } from '../signing/setup.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/signet.js');

/** Two SECRET_KEYs: the instance's, and another one. */
export const KEY_A = 'a'.repeat(32) + 'b'.repeat(32);
export const KEY_B = 'c'.repeat(64);

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `signet …args` with exactly `env` (plus PATH and HOME), to completion. */
export function signet(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const clean: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    LOG_LEVEL: 'warn',
  };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: clean });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last line of a `--json` run, parsed. */
export const jsonOf = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1) ?? 'null');

export const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `signet-${name}-`));

/** A document sent, signed by its one signer and sealed (the finalize job run): `completed`. */
export async function completedDocument(t: SigningTest, email: string, name = 'Service agreement') {
  const doc = await sentDocument(t, { signers: [{ name: 'Ada Lovelace', email }], body: { name } });
  const done = await t.request('POST', `/api/v1/signing/${latestToken(t, email)}/complete`, {
    key: null,
    body: { signature: typed() },
  });
  if (done.status !== 200) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
  await t.settle();
  return doc.id;
}

/** A document sent whose invitation is still queued (its mail job not run). */
export async function queuedDocument(t: SigningTest, email: string): Promise<string> {
  const created = await t.request('POST', '/api/v1/documents', {
    body: {
      name: 'Queued agreement',
      signers: [{ name: 'Grace Hopper', email }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5, assignedTo: 0 }],
    },
  });
  const id = created.body.data.id as string;
  await attachPdf(t, id);
  const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
  if (sent.status !== 200) throw new Error(`send: ${sent.status}`);
  return id;
}
