import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasQpdf } from '../pdf/independent-checks.ts';
import {
  address,
  latestToken,
  type SigningTest,
  sentDocument,
  signingApp,
  typed,
} from './setup.ts';

/* The certificate page of a handed-over signer: the new person signs, the hand-over is in its timeline. */
if (!hasQpdf) console.warn('reassign certificate test skipped: needs qpdf');

let t: SigningTest;
let dir: string;
beforeAll(async () => {
  t = await signingApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-reassign-'));
});
afterAll(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasQpdf)('a handed-over signer on the certificate page', () => {
  it('is the new person, and the timeline says who handed over to whom, and why', async () => {
    const ada = address('ada');
    const grace = address('grace');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: ada }],
      body: { allowReassign: true },
    });
    const handed = await t.request('POST', `/api/v1/signing/${latestToken(t, ada)}/reassign`, {
      key: null,
      body: { name: 'Grace Hopper', email: grace, reason: 'On leave' },
    });
    expect(handed.status).toBe(200);
    await t.settle();
    const done = await t.request('POST', `/api/v1/signing/${latestToken(t, grace)}/complete`, {
      key: null,
      body: { values: {}, signature: typed('Grace Hopper') },
    });
    expect(done.status).toBe(200);
    await t.settle();
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${doc.id}/download`,
      headers: { authorization: `Bearer ${t.key}` },
    });
    const file = path.join(dir, 'signed.pdf');
    await writeFile(file, download.rawPayload);
    const shown = spawnSync('qpdf', ['--show-attachment=signet-evidence.json', file], {
      encoding: 'utf8',
    });
    const evidence = JSON.parse(shown.stdout);
    expect(evidence.signers).toMatchObject([
      { name: 'Grace Hopper', email: grace, signature: 'Grace Hopper' },
    ]);
    const events = evidence.timeline.map((e: { event: string }) => e.event);
    expect(events).toContain(
      `Handed over: Ada Lovelace <${ada}> (order 0) handed over to Grace Hopper <${grace}>: On leave`,
    );
  });
});
