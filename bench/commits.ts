/**
 * `node --import tsx bench/commits.ts`: what a create's commit costs on SQLite, and what WAL
 * checkpoints add to it, in one process, no HTTP. The anchor's create (bench/naive-sql.ts: one
 * transaction of 4 inserts and a select, prepared once) on a fresh database of BENCH_SCALE × (1,000
 * organizations, 1,000,000 documents), default 0.2, with Signet's pragmas (WAL, synchronous NORMAL),
 * in alternating rounds of BENCH_REQUESTS creates each:
 *
 * `autocheckpoint N`: SQLite checkpoints inside the commit that takes the WAL past N pages (1,000
 * is SQLite's default and the server's). Per setting (BENCH_SETTINGS, comma-separated): CPU µs
 * per create (user and system of the process), the wall time of each create (median, p99, how
 * many took over 5 ms, their total per 1,000 creates: the time the event loop would be held from
 * every other request, and the three longest), and the largest the WAL file grew. Before the
 * rounds, the WAL pages one create writes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { SQL } from './naive-sql.ts';
import { seededSqliteFile } from './seed.ts';
import { percentile } from './harness.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 0.2);
const N = Number(process.env.BENCH_REQUESTS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SETTINGS = (
  process.env.BENCH_SETTINGS ?? 'autocheckpoint 1000,autocheckpoint 4000,autocheckpoint 10000'
).split(',');
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];
const id = (p: string) => `${p}_${randomBytes(12).toString('hex')}`;

const { bench, seeded, file } = await seededSqliteFile(SCALE);
try {
  const figures = new Map<string, { cpu: number[]; walls: number[]; walMax: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const setting of SETTINGS) {
      const db = new SQLite(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`wal_autocheckpoint = ${Number(setting.split(' ')[1])}`);
      const st = {
        insertDocument: db.prepare(SQL.insertDocument),
        insertSigner: db.prepare(SQL.insertSigner),
        insertAudit: db.prepare(SQL.insertAudit),
        insertEvent: db.prepare(SQL.insertEvent),
        hooks: db.prepare(SQL.hooks),
      };
      const create = db.transaction((orgId: string) => {
        const now = new Date().toISOString();
        const doc = id('doc');
        st.insertDocument.run(doc, orgId, 'Bench', 'bench', '', now, now);
        st.insertSigner.run(id('sgn'), doc, 'Ann', 'ann@example.test', 0, now, now);
        st.insertAudit.run(id('aud'), orgId, doc, 'created', '127.0.0.1', 'bench', now);
        st.insertEvent.run(id('evt'), orgId, 'document.created', '{}', now);
        st.hooks.all(orgId);
      });
      const walls: number[] = [];
      let walMax = 0;
      const started = process.cpuUsage();
      for (let i = 0; i < N; i++) {
        const t = process.hrtime.bigint();
        create(pick(seeded.orgs).id);
        walls.push(Number(process.hrtime.bigint() - t) / 1000);
        if (i % 50 === 49) {
          walMax = Math.max(walMax, fs.statSync(`${file}-wal`).size);
          await new Promise((r) => setImmediate(r));
        }
      }
      const used = process.cpuUsage(started);
      if (setting === SETTINGS[0] && round === 0) {
        // WAL frames (pages) written per create: N more creates with no checkpoint at all.
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.pragma('wal_autocheckpoint = 0');
        for (let i = 0; i < 1000; i++) create(pick(seeded.orgs).id);
        const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
        console.log(`${(log / 1000).toFixed(1)} WAL pages written per create`);
      }
      // Each round starts from a checkpointed database.
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      const f = figures.get(setting) ?? { cpu: [], walls: [], walMax: 0 };
      f.cpu.push((used.user + used.system) / N);
      f.walls.push(...walls);
      f.walMax = Math.max(f.walMax, walMax);
      figures.set(setting, f);
    }
  }
  for (const [setting, f] of figures) {
    const cpu = [...f.cpu].sort((a, b) => a - b)[Math.floor(f.cpu.length / 2)];
    const over = f.walls.filter((w) => w > 5000).length;
    // The event loop is held for as long as a create takes: what stalls every other request.
    const stalled = f.walls.filter((w) => w > 5000).reduce((n, w) => n + w, 0) / 1000;
    const largest = [...f.walls]
      .sort((a, b) => b - a)
      .slice(0, 3)
      .map((w) => (w / 1000).toFixed(0));
    console.log(
      `${setting.padEnd(22)} CPU ${cpu.toFixed(0).padStart(4)} µs/create (rounds ${f.cpu.map((c) => c.toFixed(0)).join(' ')}); wall p50 ${percentile(f.walls, 50).toFixed(0)} µs, p99 ${percentile(f.walls, 99).toFixed(0)} µs, ${over} of ${f.walls.length} over 5 ms, ${((stalled * 1000) / f.walls.length).toFixed(0)} ms of them per 1,000 creates, largest ${largest.join(', ')} ms; WAL up to ${(f.walMax / 2 ** 20).toFixed(1)} MB`,
    );
  }
} finally {
  await bench.drop();
}
