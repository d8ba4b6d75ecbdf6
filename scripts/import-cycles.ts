// Import cycles between the files of a directory (convention 16: dependencies point one way).
// A cycle is a strongly connected component of the graph of relative imports, type-only ones
// included (they tie the files together for a reader as much as value imports do).
// Usage: node --import tsx scripts/import-cycles.ts [dir]  → lists cycles; exit 1 when there is one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(ts|mts|js|mjs)$/;
// `import … from './x'`, `export … from './x'`, `import './x'` and `import('./x')`.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|(?:^|\n)\s*import\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(file, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(file);
  }
  return out;
}

function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const base = path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]);
      const hit = [
        base,
        base.replace(/\.js$/, '.ts'),
        `${base}.ts`,
        `${base}.js`,
        path.join(base, 'index.ts'),
      ].find((c) => known.has(c));
      if (hit) targets.add(hit);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every import cycle under `dir`, each as the list of its files relative to `dir` (Tarjan's SCC). */
export function importCycles(dir: string): string[][] {
  const root = path.resolve(dir);
  const graph = importGraph(listFiles(root));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v))
      cycles.push(component.map((f) => path.relative(root, f)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'src';
  const cycles = importCycles(dir);
  for (const cycle of cycles) console.log(`cycle of ${cycle.length}: ${cycle.join(' → ')}`);
  console.log(`${cycles.length} import cycles in ${dir}`);
  process.exitCode = cycles.length ? 1 : 0;
}
