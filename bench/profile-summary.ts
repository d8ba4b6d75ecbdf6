/**
 * `node --import tsx bench/profile-summary.ts FILE.cpuprofile [N] [CPU_US]`: where a CPU profile
 * of the server (`BENCH_NODE_ARGS=--cpu-prof npm run bench -- read-mix`, or `npm run bench:cpu`
 * with it for one endpoint) spent its time: the share of samples by kind of code (idle, garbage
 * collection, the database driver, Fastify and Node's HTTP, Signet's own code, the rest), by
 * stage of a request (bench/profile-stages.ts; start-up left out), and the N functions with the
 * most self time. With CPU_US (the server's CPU time per request that `npm run bench:cpu`
 * printed, user plus system), each stage's share of it in µs: the samples' own time deltas count
 * wall time, which a busy machine stretches.
 */
import fs from 'node:fs';
import { isStartup, stageOf, type Frame } from './profile-stages.ts';

interface Node {
  id: number;
  callFrame: Frame & { lineNumber: number };
  children?: number[];
}
const [file, top = '25', cpuUs] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
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
  if (url.includes('/src/') || url.includes('/dist/')) return "Signet's code";
  if (url.startsWith('node:')) return 'Node internals';
  if (url === '') return 'native';
  return 'other libraries';
}

const kinds = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, count] of self) {
  const n = byId.get(id)!;
  kinds.set(kind(n), (kinds.get(kind(n)) ?? 0) + count);
  const where = n.callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/');
  const name = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
  fns.set(name, (fns.get(name) ?? 0) + count);
}
const pct = (c: number, of = total) => `${((100 * c) / of).toFixed(1)}%`.padStart(6);
console.log(`${total} samples`);
for (const [k, c] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`${pct(c)}  ${k}`);

// Stages: each sample's stack, leaf first; time from the sample's delta (µs).
const stages = new Map<string, number>();
let busy = 0;
const stackOf = (id: number) => {
  const stack: Frame[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
    stack.push(byId.get(at)!.callFrame);
  return stack;
};
const stackCache = new Map<number, { startup: boolean; stage: string }>();
for (const [i, id] of profile.samples.entries()) {
  let s = stackCache.get(id);
  if (!s) {
    const stack = stackOf(id);
    s = { startup: isStartup(stack), stage: stageOf(stack) };
    stackCache.set(id, s);
  }
  if (s.startup || s.stage === 'idle') continue;
  const us = profile.timeDeltas[i] ?? 0;
  stages.set(s.stage, (stages.get(s.stage) ?? 0) + us);
  busy += us;
}
console.log(`\nBy stage (busy time after start-up${cpuUs ? ', CPU µs per request' : ''}):`);
for (const [k, us] of [...stages].sort((a, b) => b[1] - a[1])) {
  const perRequest = cpuUs ? `${((us / busy) * Number(cpuUs)).toFixed(1).padStart(7)} µs  ` : '';
  console.log(`${pct(us, busy)}  ${perRequest}${k}`);
}
console.log('');
for (const [f, c] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`${pct(c)}  ${f}`);
