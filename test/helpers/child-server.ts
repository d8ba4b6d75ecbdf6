import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/signet.js', import.meta.url));
const run = promisify(execFile);

/**
 * The container image's start command, read from the Dockerfile's exec-form `CMD`, so the child
 * servers run exactly what the image runs (from the repository root, as the image does from its
 * WORKDIR). `node` is this test run's own Node binary.
 */
function startCommand(): string[] {
  const line = fs
    .readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .find((l) => /^CMD\s*\[/.test(l));
  if (!line) throw new Error('Dockerfile has no exec-form CMD [...]');
  const argv = JSON.parse(line.replace(/^CMD\s*/, '')) as string[];
  if (argv[0] !== 'node') throw new Error(`Dockerfile CMD does not start with node: ${line}`);
  return argv;
}

/** The environment of a child `signet` process: only what it needs, nothing inherited by accident. */
export function childEnv(vars: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'warn',
  };
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs `signet <args> --json` and returns its JSON output. */
export async function cli(env: Record<string, string>, args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], {
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A port nobody listens on right now, chosen by the OS. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the image's start command (`signet serve`) and waits until /healthz answers. */
export async function serve(env: Record<string, string>): Promise<ChildServer> {
  const port = await freePort();
  const [, ...args] = startCommand();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const url = `http://127.0.0.1:${port}`;
  // Generous: a loaded machine (several suites at once) can take long to start a process.
  const until = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`signet serve exited early:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`signet serve did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, port, process: child, output: () => output, exited };
}

/** Sends SIGTERM and waits for the exit: the exit code and how long the shutdown took. */
export async function terminate(
  server: ChildServer,
  timeoutMs = 40_000,
): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  server.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    server.exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no exit ${timeoutMs} ms after SIGTERM:\n${server.output()}`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return { code, ms: Date.now() - started };
}

/** The structured log lines (JSON) a child server printed, optionally only those with message `msg`. */
export function logLines(server: ChildServer, msg?: string): Record<string, any>[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((l) => msg === undefined || l.msg === msg);
}

/** Delivery ids of the webhook attempts a child server made and recorded (logged at debug level). */
export const attemptedDeliveries = (server: ChildServer): Set<string> =>
  new Set(logLines(server, 'webhook attempt succeeded').map((l) => l.deliveryId as string));

export interface ApiReply {
  status: number;
  body: any;
  headers: Headers;
}

/** A JSON request to a child server with an API key (`null`: none). */
export async function api(
  server: ChildServer,
  key: string | null,
  method: string,
  url: string,
  body?: unknown,
): Promise<ApiReply> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body:
      text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text || null,
    headers: res.headers,
  };
}
