/**
 * What the server itself sees under a load, preloaded into it:
 * `BENCH_NODE_ARGS="--import ./bench/server-timings.mjs" npm run bench -- create-under-load`.
 * On SIGTERM (the bench stopping the server) it writes `server-timings-PID.json` to the temporary
 * directory: per method, the time from a request's headers being parsed to its answer being handed
 * to the kernel (what the client sees beyond that is waiting to be read); the wait from accepting
 * a connection to its first request; the event loop's delay (perf_hooks, 1 ms resolution) and its
 * stalls over 25 ms (milliseconds since the first request, length); garbage-collection pauses over
 * 20 ms. docs/performance.md ("Creates under read load") reads them.
 */
import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

let first;
const since = (t) => Math.round(t - (first ?? t));
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

const stalls = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > 25) stalls.push([since(now), Math.round(now - last)]);
  last = now;
}, 5).unref();

const pauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (e.duration > 20) pauses.push([since(e.startTime), Math.round(e.duration)]);
}).observe({ entryTypes: ['gc'] });

const accepted = new WeakMap();
const started = new WeakMap();
const acceptToFirst = [];
const byMethod = {};
dc.subscribe('net.server.socket', ({ socket }) => accepted.set(socket, performance.now()));
dc.subscribe('http.server.request.start', ({ request }) => {
  const now = performance.now();
  first ??= now;
  started.set(request, now);
  const at = accepted.get(request.socket);
  if (at !== undefined) {
    acceptToFirst.push(now - at);
    accepted.delete(request.socket);
  }
});
dc.subscribe('http.server.response.finish', ({ request }) => {
  const t = started.get(request);
  if (t === undefined) return;
  byMethod[request.method] ??= [];
  byMethod[request.method].push(performance.now() - t);
});

const figures = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const at = (p) =>
    Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(2));
  return { count: s.length, p50: at(50), p99: at(99), p999: at(99.9), max: at(100) };
};

process.on('SIGTERM', () => {
  const ms = (ns) => Number((ns / 1e6).toFixed(2));
  const out = {
    requests: Object.fromEntries(Object.entries(byMethod).map(([m, v]) => [m, figures(v)])),
    acceptToFirstRequest: figures(acceptToFirst),
    eventLoopDelay: {
      p50: ms(delay.percentile(50)),
      p99: ms(delay.percentile(99)),
      p999: ms(delay.percentile(99.9)),
      max: ms(delay.max),
    },
    longestStalls: [...stalls].sort((a, b) => b[1] - a[1]).slice(0, 15),
    gcPauses: pauses,
  };
  fs.writeFileSync(
    path.join(os.tmpdir(), `server-timings-${process.pid}.json`),
    JSON.stringify(out, null, 1),
  );
});
