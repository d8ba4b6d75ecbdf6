/**
 * `npm run bench:startup [-- RUNS]`: how long the built CLI and server take to start, as a user
 * waits for them: `signet --help`, `signet key list --org …` on an installation with one
 * organization, and `signet serve` until /healthz first answers (with the server's own CPU time
 * at that moment, all its threads). Each is run RUNS times (default 7) after one warm-up, in
 * turns with `node -e 0` (Node's own start, the yardstick): min, median and max of each, and the
 * median ratio to the yardstick. Linux only (CPU times are read from /proc).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './harness.ts';

const RUNS = Number(process.argv[2] ?? 7);
const BIN = path.join(ROOT, 'bin/signet.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-startup-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: dataDir,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  // PERF_OFF=lazy-schemas times the start with every schema compiled up front.
  PERF_OFF: process.env.PERF_OFF ?? '',
};
const TICK_MS = 10; // /proc reports CPU time in clock ticks of 1/100 s on Linux

/** User + system CPU time, in ms, of the reaped children of this process (fields 16-17 of stat). */
function childrenCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** Runs a command to its end: wall and CPU milliseconds. */
function timed(args: string[]): { wall: number; cpu: number } {
  const cpu0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall: performance.now() - t0, cpu: childrenCpuMs() - cpu0 };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** `signet serve` until /healthz answers 200: wall ms, and the server's CPU ms at that moment. */
async function serveReady(): Promise<{ wall: number; cpu: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`signet serve exited ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const wall = performance.now() - t0;
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { wall, cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (xs: number[]) =>
  `${Math.min(...xs).toFixed(0)} / ${median(xs).toFixed(0)} / ${Math.max(...xs).toFixed(0)}`;

// The installation: migrated, with one organization.
timed([BIN, 'org', 'create', '--name', 'Bench', '--admin-email', 'bench@example.com']);
const list = spawnSync(process.execPath, [BIN, 'org', 'list', '--json'], { env, encoding: 'utf8' });
const org = JSON.parse(list.stdout).data[0].id as string;

const cases: [string, () => Promise<{ wall: number; cpu: number }>][] = [
  ['node -e 0 (yardstick)', async () => timed(['-e', '0'])],
  ['signet --help', async () => timed([BIN, '--help'])],
  ['signet key list', async () => timed([BIN, 'key', 'list', '--org', org])],
  ['signet serve → /healthz 200', serveReady],
];
const results = new Map(
  cases.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[] }]),
);
for (let i = 0; i <= RUNS; i++) {
  for (const [name, run] of cases) {
    const r = await run();
    if (i === 0) continue; // the warm-up
    results.get(name)?.wall.push(r.wall);
    results.get(name)?.cpu.push(r.cpu);
  }
}
fs.rmSync(dataDir, { recursive: true, force: true });

const yardstick = median(results.get(cases[0][0])?.wall ?? [1]);
console.log(
  `${RUNS} runs each after a warm-up, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)}`,
);
console.log(
  '                                wall ms min/median/max   cpu ms min/median/max   wall / yardstick',
);
for (const [name, { wall, cpu }] of results)
  console.log(
    `${name.padEnd(32)}${row(wall).padEnd(25)}${row(cpu).padEnd(24)}${(median(wall) / yardstick).toFixed(1)}`,
  );
