// Import cycles between the files of a directory (convention 16: dependencies point one way).
// A cycle is a strongly connected component of the graph of relative imports, type-only ones
// included (they tie the files together for a reader as much as value imports do).
// Cycles between folders too (convention 17: folders depend one way; folderCycles).
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

/** The strongly connected components of `graph` that are cycles (Tarjan's SCC). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const lowOf = (v: string): number => low.get(v) ?? 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(lowOf(v), lowOf(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(lowOf(v), index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** Every import cycle under `dir`, each as the list of its files relative to `dir`. */
export function importCycles(dir: string): string[][] {
  const root = path.resolve(dir);
  const graph = importGraph(listFiles(root));
  return cyclesOf(graph).map((cycle) => cycle.map((f) => path.relative(root, f)).sort());
}

/**
 * The folder a file belongs to for folderCycles (convention 17): each folder of modules/ is
 * one, and so is each other top-level folder (http, db, jobs, queue, pdf, …); a loose file of
 * `dir` (app.ts, deps.ts, …) is one of its own.
 */
export function folderOf(relativeFile: string): string {
  const parts = relativeFile.split(path.sep);
  if (parts.length === 1) return parts[0];
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts[0];
}

/** Which folders each folder imports from (files relative to `dir`, grouped by folderOf). */
export function folderGraph(dir: string): Map<string, string[]> {
  const root = path.resolve(dir);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(listFiles(root))) {
    const from = folderOf(path.relative(root, file));
    const out = folders.get(from) ?? new Set<string>();
    folders.set(from, out);
    for (const target of targets) {
      const to = folderOf(path.relative(root, target));
      if (to !== from) out.add(to);
    }
  }
  return new Map([...folders].map(([folder, out]) => [folder, [...out].sort()]));
}

/** Every cycle between the folders of `dir` (folderOf), each as the sorted list of its folders. */
export function folderCycles(dir: string): string[][] {
  return cyclesOf(folderGraph(dir));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'src';
  const cycles = importCycles(dir);
  for (const cycle of cycles) console.log(`cycle of ${cycle.length}: ${cycle.join(' → ')}`);
  console.log(`${cycles.length} import cycles in ${dir}`);
  const folders = folderCycles(dir);
  for (const cycle of folders) console.log(`folder cycle of ${cycle.length}: ${cycle.join(', ')}`);
  console.log(`${folders.length} folder cycles in ${dir}`);
  process.exitCode = cycles.length || folders.length ? 1 : 0;
}
