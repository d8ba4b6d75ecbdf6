import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles } from '../../scripts/import-cycles.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

describe('import cycles', () => {
  const fixture = mkdtempSync(path.join(tmpdir(), 'signet-cycles-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('src/ has none', () => {
    expect(importCycles(SRC)).toEqual([]);
  });

  it('finds a cycle through type-only, re-export and side-effect imports', () => {
    mkdirSync(path.join(fixture, 'a'), { recursive: true });
    writeFileSync(
      path.join(fixture, 'a/one.ts'),
      "import type { Two } from '../two.ts';\nexport type One = Two;\n",
    );
    writeFileSync(
      path.join(fixture, 'two.ts'),
      "export * from './three.ts';\nexport type Two = string;\n",
    );
    writeFileSync(path.join(fixture, 'three.ts'), "import './a/one.ts';\n");
    writeFileSync(
      path.join(fixture, 'apart.ts'),
      "import { x } from './four.ts';\nexport const y = x;\n",
    );
    writeFileSync(path.join(fixture, 'four.ts'), 'export const x = 1;\n');
    expect(importCycles(fixture)).toEqual([['a/one.ts', 'three.ts', 'two.ts']]);
  });
});
