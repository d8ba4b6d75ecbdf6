import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { newDocumentRow } from '../../src/modules/documents-core/new-document-row.ts';
import { killLeftovers, newInstallation, runCli, type Installation } from './run-cli.ts';

/*
 * `signet documents lost-text` on sealed files as Signet wrote them: two sealed by the sealer of
 * before every script was drawn (test/pdf/fixtures, made by that code: one with Arabic, Polish
 * and Japanese names, one with Latin names only), and one sealed by today's.
 */

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../pdf/fixtures');
const installations: Installation[] = [];
afterAll(async () => {
  killLeftovers();
  for (const inst of installations) await inst.remove();
});

async function seed(inst: Installation, files: Record<string, string>): Promise<string> {
  expect((await runCli(inst, ['migrate'])).code).toBe(0);
  const org = await runCli(inst, [
    'org',
    'create',
    '--name',
    'Acme',
    '--admin-email',
    'a@acme.test',
    '--json',
  ]);
  const orgId = JSON.parse(org.stdout).id as string;
  const handle = inst.open();
  try {
    for (const [id, file] of Object.entries(files)) {
      const key = `documents/${id}/signed.pdf`;
      fs.mkdirSync(path.join(inst.dataDir, 'files', path.dirname(key)), { recursive: true });
      fs.copyFileSync(path.join(FIXTURES, file), path.join(inst.dataDir, 'files', key));
      const now = '2025-03-04T10:20:30.000Z';
      await handle.db
        .insertInto('documents')
        .values({
          ...newDocumentRow({
            id,
            orgId,
            name: `Agreement ${id}`,
            now,
            status: 'draft',
            signingType: 'sequential',
            requireKyc: false,
          }),
          status: 'completed',
          completed_at: now,
          signed_file_key: key,
        })
        .execute();
    }
  } finally {
    await handle.close();
  }
  return orgId;
}

describe('signet documents lost-text', () => {
  it('lists the document whose seal drew "?" for its names, and not the ones that kept them', async () => {
    const inst = await newInstallation();
    installations.push(inst);
    await seed(inst, {
      doc_0001lost: 'sealed-before-fonts-lost.pdf',
      doc_0002kept: 'sealed-before-fonts-kept.pdf',
    });

    const json = await runCli(inst, ['documents', 'lost-text', '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const { data } = JSON.parse(json.stdout) as {
      data: Array<{
        documentId: string;
        lost: Array<{ where: string; value: string; drawn: string }>;
        people: Array<{ email: string }>;
      }>;
    };
    expect(data.map((d) => d.documentId)).toEqual(['doc_0001lost']);
    expect(data[0].lost).toContainEqual({
      where: 'signers[0].name',
      value: 'محمد علي',
      drawn: '???? ???',
    });
    expect(data[0].lost).toContainEqual({
      where: 'signers[1].name',
      value: 'Łukasz Dvořák',
      drawn: '?ukasz Dvo?ák',
    });
    expect(data[0].lost).toContainEqual({
      where: 'document.name',
      value: 'Contrat de location – 賃貸契約',
      drawn: 'Contrat de location – ????',
    });
    expect(data[0].people.map((p) => p.email)).toEqual([
      'mohammed@example.test',
      'lukasz@example.test',
      'taro@example.test',
    ]);

    const text = await runCli(inst, ['documents', 'lost-text']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('doc_0001lost');
    expect(text.stdout).toContain('signers[2].name: "山田太郎" was drawn as "????"');
    expect(text.stdout).not.toContain('doc_0002kept');
  }, 60_000);
});
