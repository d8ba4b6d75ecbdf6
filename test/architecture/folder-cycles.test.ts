import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderCycles, folderGraph } from '../../scripts/import-cycles.ts';

// Convention 17: folders depend one way. SIGNET_SRC lets the check run on another tree.
const SRC = process.env.SIGNET_SRC ?? path.resolve(import.meta.dirname, '../../src');

describe('folder cycles', () => {
  const fixture = mkdtempSync(path.join(tmpdir(), 'signet-folder-cycles-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('src/ has none between its folders', () => {
    expect(folderCycles(SRC)).toEqual([]);
  });

  it('the layers point one way: deps.ts and the queue import no module and no job handler', () => {
    const graph = folderGraph(SRC);
    const upward = (folder: string) =>
      (graph.get(folder) ?? []).filter((to) => to === 'jobs' || to.startsWith('modules/'));
    expect(upward('deps.ts')).toEqual([]);
    expect(upward('queue')).toEqual([]);
    for (const [folder, targets] of graph) {
      if (folder.startsWith('modules/'))
        expect([folder, targets.includes('jobs')]).toEqual([folder, false]);
    }
  });

  it('the documents core imports no module above it', () => {
    const above = ['signing', 'templates', 'campaigns', 'bulk-sends', 'events', 'documents'];
    const targets = folderGraph(SRC).get('modules/documents-core') ?? [];
    expect(targets.filter((t) => above.some((a) => t === `modules/${a}`))).toEqual([]);
  });

  it('finds a cycle between folders made of files that do not form a file cycle', () => {
    mkdirSync(path.join(fixture, 'modules/a'), { recursive: true });
    mkdirSync(path.join(fixture, 'modules/b'), { recursive: true });
    mkdirSync(path.join(fixture, 'jobs'), { recursive: true });
    writeFileSync(
      path.join(fixture, 'modules/a/one.ts'),
      "import type { Two } from '../b/two.ts';\nexport type One = Two;\n",
    );
    writeFileSync(path.join(fixture, 'modules/b/two.ts'), 'export type Two = string;\n');
    writeFileSync(
      path.join(fixture, 'modules/b/three.ts'),
      "import { four } from '../../jobs/four.ts';\nexport const three = four;\n",
    );
    writeFileSync(
      path.join(fixture, 'jobs/four.ts'),
      "export { five as four } from '../modules/a/five.ts';\n",
    );
    writeFileSync(path.join(fixture, 'modules/a/five.ts'), 'export const five = 5;\n');
    writeFileSync(path.join(fixture, 'loose.ts'), "import { five } from './modules/a/five.ts';\n");
    expect(folderCycles(fixture)).toEqual([['jobs', 'modules/a', 'modules/b']]);
  });
});
