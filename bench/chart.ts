import fs from 'node:fs';

type Result = {
  ratio?: number | null;
  goal: string;
  database: string;
  summary?: string;
  [figure: string]: unknown;
};

interface Report {
  startedAt: string;
  machine: { cpus: number; node: string };
  scenarios: Record<string, Result>;
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const num = (r: Result, key: string) => (typeof r[key] === 'number' ? (r[key] as number) : NaN);

/**
 * How far each scenario is from its goal, as measured ÷ goal (1 = met, higher is better): for a
 * goal with two parts (throughput and latency, speed and memory) the weaker part counts.
 */
const createsOf = (r: Result) =>
  (r.classes as Record<string, { perSec: number; p99Ms: number }> | undefined)?.create;
const shareOfGoal: Record<string, (r: Result) => number> = {
  // read-mix: the bare ratio's goal is 0.25 on SQLite, 0.15 on PostgreSQL; 1.5 × naive; p99 <= 25 ms.
  'read-mix': (r) =>
    Math.min(
      num(r, 'ratio') / (r.database === 'sqlite' ? 0.25 : 0.15),
      num(r, 'naiveRatio') / 1.5,
      25 / num(r, 'p99Ms'),
    ),
  'create-under-load': (r) =>
    Math.min((createsOf(r)?.perSec ?? NaN) / 1000, 20 / (createsOf(r)?.p99Ms ?? NaN)),
  upload: (r) => Math.min(num(r, 'mbPerSec') / 200, 30 / Math.max(0.1, num(r, 'rssGrowthMb'))),
  webhooks: (r) => Math.min(num(r, 'deliveriesPerSec') / 1000, 50 / num(r, 'drainingP99Ms')),
  finalize: (r) => Math.min(200 / num(r, 'pages20MedianMs'), 250 / num(r, 'bigPeakRssMb')),
};

/** One bar per scenario: its share of the goal (capped at 2×), with the measured figures beside it. */
export function writeChart(report: Report, file: string): void {
  const rows = Object.entries(report.scenarios)
    .map(([name, r]) => ({ name, r, share: shareOfGoal[name.split('@')[0]]?.(r) ?? NaN }))
    .filter((row) => Number.isFinite(row.share));
  const width = 1040;
  const barLeft = 190;
  const barMax = 300;
  const rowH = 34;
  const height = 70 + rows.length * rowH + 30;
  const x = (share: number) => barLeft + (Math.min(2, Math.max(0, share)) / 2) * barMax;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="16" y="26" font-size="15" font-weight="600">Signet benchmarks: measured ÷ goal (1 = goal met), ${report.machine.cpus} cores, ${esc(report.machine.node)}</text>`,
    `<text x="16" y="46" fill="#495057">Ratios to a bare node:http server and to a naive Fastify implementation, measured in turns in the same run; the weakest part of each goal counts.</text>`,
  ];
  rows.forEach(({ name, r, share }, i) => {
    const y = 60 + i * rowH;
    parts.push(
      `<text x="16" y="${y + 17}">${esc(name)}</text>`,
      `<rect x="${barLeft}" y="${y + 4}" width="${barMax}" height="18" fill="#f1f3f5"/>`,
      `<rect x="${barLeft}" y="${y + 4}" width="${(x(share) - barLeft).toFixed(1)}" height="18" fill="${share >= 1 ? '#2f9e44' : '#e8590c'}"/>`,
      `<line x1="${x(1).toFixed(1)}" x2="${x(1).toFixed(1)}" y1="${y}" y2="${y + 26}" stroke="#212529" stroke-dasharray="3 2"/>`,
      `<text x="${barLeft + barMax + 10}" y="${y + 18}">${share.toFixed(2)}×  ${esc(r.summary ?? `ratio ${num(r, 'ratio')}`)}</text>`,
    );
  });
  parts.push(
    `<text x="16" y="${height - 10}" fill="#495057">Dashed line: the goal. ${esc(report.startedAt)}</text>`,
    '</svg>',
  );
  fs.writeFileSync(file, `${parts.join('\n')}\n`);
}
