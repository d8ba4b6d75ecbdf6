import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * Narrow dependencies: a use case takes the part of AppDeps it uses (`Pick<AppDeps, 'db' | …>` or
 * its own small type), never AppDeps whole, so what it can touch is in its signature. Only the
 * wiring may hold all of it: route plugins (`*.routes.ts`), app.ts and the job registrations.
 * Parameter types are read by the type checker, so an alias, an inline `import('…').AppDeps`,
 * `FastifyInstance['deps']` or a line break inside the annotation is seen as what it is.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Every .ts file under `<src>/modules` that is a use case (not a route plugin). */
function useCaseFiles(src: string): string[] {
  return readdirSync(path.join(src, 'modules'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.routes.ts'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The parameters of use cases in `src` typed AppDeps whole, as `file:line name`. */
function wholeDepsParameters(src: string): string[] {
  const files = useCaseFiles(src);
  const depsFile = path.join(src, 'deps.ts');
  const program = ts.createProgram([depsFile, ...files], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const depsSource = program.getSourceFile(depsFile);
  const declaration = depsSource?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'AppDeps',
  );
  if (!declaration) throw new Error(`no AppDeps interface in ${depsFile}`);
  const appDeps = checker.getSymbolAtLocation(declaration.name);
  const isWhole = (type: ts.Type): boolean =>
    type.isUnion() ? type.types.some(isWhole) : type.getSymbol() === appDeps;

  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`not compiled: ${file}`);
    const visit = (node: ts.Node): void => {
      // Annotated parameters only: an unannotated one takes its type from an annotation that is
      // itself a parameter here (a function type's), and inferring every body would be slow.
      if (ts.isParameter(node) && node.type && isWhole(checker.getTypeFromTypeNode(node.type))) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${path.relative(src, file)}:${line} ${node.name.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('narrow dependencies', () => {
  const fixture = mkdtempSync(path.join(tmpdir(), 'signet-narrow-deps-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('no use case in src/modules takes AppDeps whole', () => {
    expect(wholeDepsParameters(SRC)).toEqual([]);
  }, 60_000);

  it('finds AppDeps whole however it is written, and lets Pick and route plugins pass', () => {
    mkdirSync(path.join(fixture, 'modules/things'), { recursive: true });
    writeFileSync(
      path.join(fixture, 'deps.ts'),
      'export interface AppDeps { db: string; clock: number }\n',
    );
    const uses = [
      "import type { AppDeps } from '../../deps.ts';",
      "import type { AppDeps as Everything } from '../../deps.ts';",
      'type Alias = AppDeps;',
      'export function plain(deps: AppDeps) { return deps.db; }',
      'export function wrapped(',
      '  deps:',
      '    AppDeps,',
      ') { return deps.clock; }',
      'export const arrow = (d: Everything) => d.db;',
      'export const aliased = (d: Alias) => d.db;',
      "export const inline = (d: import('../../deps.ts').AppDeps) => d.db;",
      'export const maybe = (d?: AppDeps) => d?.db;',
      "export const narrow = (d: Pick<AppDeps, 'db'>) => d.db;",
      'export const own = (d: { db: string }) => d.db;',
    ];
    writeFileSync(path.join(fixture, 'modules/things/things.service.ts'), `${uses.join('\n')}\n`);
    writeFileSync(
      path.join(fixture, 'modules/things/things.routes.ts'),
      "import type { AppDeps } from '../../deps.ts';\nexport const wire = (deps: AppDeps) => deps;\n",
    );
    expect(wholeDepsParameters(fixture)).toEqual([
      'modules/things/things.service.ts:4 deps',
      'modules/things/things.service.ts:6 deps',
      'modules/things/things.service.ts:9 d',
      'modules/things/things.service.ts:10 d',
      'modules/things/things.service.ts:11 d',
      'modules/things/things.service.ts:12 d',
    ]);
  });
});
