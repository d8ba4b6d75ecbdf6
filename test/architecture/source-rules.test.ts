import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * Rules for every TypeScript file of src/: no cast that switches the type checker off (`as never`,
 * `as unknown as`), and no file over 300 lines (ARCHITECTURE.md, convention 10). Casts are found in
 * the syntax tree, so comments and strings do not count. The 300 lines hold for the hand-written
 * JavaScript of src/ too: the browser pages' modules (src/web/client/*.js).
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 300;

function filesOf(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const sourceFiles = (dir: string) =>
  filesOf(dir, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
/** JavaScript written by hand (.js, .mjs, .cjs); src/ holds none that a tool generated. */
const scriptFiles = (dir: string) => filesOf(dir, (name) => /\.[cm]?js$/.test(name));

type Cast = ts.AsExpression | ts.TypeAssertion;
const isCast = (node: ts.Node): node is Cast =>
  ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);

/** `x as never`, `<never>x`, and `x as unknown as T` in `text`, as `line: code`. */
function forbiddenCasts(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isCast(node)) {
      let inner: ts.Expression = node.expression;
      while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
      const toNever = node.type.kind === ts.SyntaxKind.NeverKeyword;
      const throughUnknown = isCast(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword;
      if (toNever || throughUnknown) {
        const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        found.push(`${line}: ${node.getText(file)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function lineCount(text: string): number {
  // As `wc -l` counts: newline characters (a last line without one counts too).
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1;
}

describe('source rules', () => {
  const files = sourceFiles(SRC);

  const scripts = scriptFiles(SRC);

  it('finds the files of src/', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain(path.join(SRC, 'app.ts'));
    expect(scripts).toContain(path.join(SRC, 'web/client/app.js'));
    expect(scripts).toContain(path.join(SRC, 'web/client/campaign.js'));
  });

  it('src/ has no `as never` and no `as unknown as`', () => {
    const offences = files.flatMap((f) =>
      forbiddenCasts(f, readFileSync(f, 'utf8')).map((c) => `${path.relative(SRC, f)}:${c}`),
    );
    expect(offences).toEqual([]);
  });

  it(`no file of src/ is over ${MAX_LINES} lines`, () => {
    // A migration is written once and never edited or split (its name is its identity in every
    // database it ran on), so the bound is for the code that changes.
    const long = [...files, ...scripts]
      .filter((f) => !f.includes(`${path.sep}db${path.sep}migrations${path.sep}`))
      .map((f) => ({ file: path.relative(SRC, f), lines: lineCount(readFileSync(f, 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('finds the casts in code, not in comments or strings', () => {
    const text = [
      '// a comment: value as never',
      "const s = 'x as unknown as Y';",
      '/* block as unknown as Z */',
      'const a = f() as never;',
      'const b = (g() as unknown) as string;',
      'const c = h() as unknown as number;',
      'const d = <never>k;',
      'const e = m() as unknown;',
      'const f2 = n() as string as never;',
    ].join('\n');
    expect(forbiddenCasts('fixture.ts', text)).toEqual([
      '4: f() as never',
      '5: (g() as unknown) as string',
      '6: h() as unknown as number',
      '7: <never>k',
      '9: n() as string as never',
    ]);
  });

  it('counts lines as wc -l does', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('a\nb\n')).toBe(2);
  });
});
