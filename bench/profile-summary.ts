/**
 * `node --import tsx bench/profile-summary.ts FILE.cpuprofile [N]`: where a CPU profile of the
 * server (`BENCH_NODE_ARGS=--cpu-prof npm run bench -- read-mix`) spent its time: the share of
 * samples by kind of code (idle, garbage collection, the database driver, Fastify and Node's HTTP,
 * Signet's own code, the rest) and the N functions with the most self time.
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, top = '25'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + 1);
const total = profile.samples.length;

function kind(n: Node): string {
  const { functionName: f, url } = n.callFrame;
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'garbage collection';
  if (f === '(program)') return 'program (native, unattributed)';
  if (
    url.includes('better-sqlite3') ||
    url.includes('/pg/') ||
    url.includes('pg-protocol') ||
    url.includes('kysely')
  )
    return 'database driver and Kysely';
  if (
    url.includes('/fastify') ||
    url.includes('find-my-way') ||
    url.includes('light-my-request') ||
    url.includes('avvio') ||
    url.startsWith('node:_http') ||
    url.startsWith('node:http')
  )
    return 'Fastify and Node HTTP';
  if (url.includes('/src/')) return "Signet's code";
  if (url.startsWith('node:')) return 'Node internals';
  if (url === '') return 'native';
  return 'other libraries';
}

const kinds = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, count] of self) {
  const n = byId.get(id)!;
  kinds.set(kind(n), (kinds.get(kind(n)) ?? 0) + count);
  const where = n.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/');
  const name = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
  fns.set(name, (fns.get(name) ?? 0) + count);
}
const pct = (c: number) => `${((100 * c) / total).toFixed(1)}%`.padStart(6);
console.log(`${total} samples`);
for (const [k, c] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`${pct(c)}  ${k}`);
console.log('');
for (const [f, c] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`${pct(c)}  ${f}`);
