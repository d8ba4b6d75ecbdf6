/**
 * `node --import tsx bench/statements.ts`: the statements alone, in one process, no HTTP: the
 * naive implementation's (bench/naive-sql.ts, prepared once, better-sqlite3) for a detail, a
 * list page and a create, and Signet's detail and list statements through its own repository, on
 * a fresh SQLite database of 100 organizations and 100,000 documents (BENCH_SCALE as bench/run.ts),
 * each request a random organization and document as in read-mix. Each with SQLite's default page
 * cache and again with `cache_size`/`mmap_size` (not kept; BENCH_CACHE_SIZE and BENCH_MMAP_SIZE
 * set them, 64 MB and 256 MB unless told), in alternating rounds. Last, whether
 * a transaction commits before another request's read could run.
 * Prints CPU µs per request (user and system): the median of the rounds after each setting's first,
 * and what these statements alone allow create-under-load (bench/mix.ts) with SQLite's defaults.
 */
import { hash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { createDb } from '../src/db/create-db.ts';
import { findDocumentDetail } from '../src/modules/documents-core/document-detail.query.ts';
import { listDocuments } from '../src/modules/documents-core/documents.repository.ts';
import { listName, SQL, type Name } from './naive-sql.ts';
import { listFilters } from './mix.ts';
import { seededSqliteFile } from './seed.ts';

const SCALE = Number(process.env.BENCH_SCALE ?? 0.1);
const N = Number(process.env.BENCH_REQUESTS ?? 20_000);
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];

const SIGNET_DETAIL = "Signet's detail statement (findDocumentDetail, via Kysely)";
const SIGNET_LIST = "Signet's list statement (listDocuments, via Kysely)";

const { bench, seeded, file } = await seededSqliteFile(SCALE);
try {
  console.log(`database file: ${Math.round(statSync(file).size / 2 ** 20)} MB`);
  // Rounds alternate the two settings; each figure is the median of its rounds (the first round
  // of each is a warm-up: it reads the pages in).
  const figures = new Map<string, number[]>();
  let label = '';
  const time = async (what: string, one: () => unknown) => {
    // CPU time, not wall time: on a shared machine the process waits for a core between samples.
    const started = process.cpuUsage();
    for (let i = 0; i < N; i++) await one();
    const used = process.cpuUsage(started);
    const us = (used.user + used.system) / N;
    const key = `${what} (${label})`;
    figures.set(key, [...(figures.get(key) ?? []), us]);
  };
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
  for (let round = 0; round < ROUNDS * 2; round++) {
    const tuned = round % 2 === 1;
    label = tuned ? 'cache_size, mmap_size' : 'SQLite defaults';
    const db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    if (tuned) {
      db.pragma(`cache_size = ${process.env.BENCH_CACHE_SIZE ?? -65536}`);
      db.pragma(`mmap_size = ${process.env.BENCH_MMAP_SIZE ?? 268435456}`);
    }
    const st = Object.fromEntries(
      Object.entries(SQL).map(([n, text]) => [n, db.prepare(text)]),
    ) as Record<Name, SQLite.Statement>;
    const keyHash = (key: string) => hash('sha256', key, 'hex');
    await time('key lookup (hash and select)', () => st.key.get(keyHash(pick(seeded.orgs).key)));
    await time('detail: document, signers, fields, attachments', () => {
      const org = pick(seeded.orgs);
      const id = pick(org.documents);
      st.document.get(id, org.id);
      st.signers.all(id);
      st.fields.all(id);
      st.attachments.all(id);
    });
    await time('list page: random filters and limit as read-mix', () => {
      const org = pick(seeded.orgs);
      const { status, search, limit } = listFilters();
      const params: unknown[] = [org.id];
      if (status) params.push(status);
      if (search) params.push(`%${search}%`);
      params.push(limit + 1);
      st[listName(Boolean(status), Boolean(search))].all(params);
    });
    const id = (p: string) => `${p}_${randomBytes(12).toString('hex')}`;
    // Each step of the create timed on its own too (CPU time around it, summed over the loop).
    const steps = new Map<string, number>();
    const step = (name: string, run: () => unknown) => {
      const before = process.cpuUsage();
      run();
      const used = process.cpuUsage(before);
      steps.set(name, (steps.get(name) ?? 0) + used.user + used.system);
    };
    const create = (orgId: string) => {
      const now = new Date().toISOString();
      const doc = id('doc');
      step('begin immediate', () => db.exec('begin immediate'));
      step('insert document', () =>
        st.insertDocument.run(doc, orgId, 'Bench', 'bench', '', now, now),
      );
      step('insert signer', () =>
        st.insertSigner.run(id('sgn'), doc, 'Ann', 'ann@example.test', 0, now, now),
      );
      step('insert audit entry', () =>
        st.insertAudit.run(id('aud'), orgId, doc, 'created', '127.0.0.1', 'bench', now),
      );
      step('insert event', () =>
        st.insertEvent.run(id('evt'), orgId, 'document.created', '{}', now),
      );
      step('select webhooks', () => st.hooks.all(orgId));
      step('commit', () => db.exec('commit'));
    };
    await time('create: one transaction, 4 inserts and a select', () =>
      create(pick(seeded.orgs).id),
    );
    for (const [name, us] of steps) {
      const key = `  create step: ${name} (${label})`;
      figures.set(key, [...(figures.get(key) ?? []), us / N]);
    }
    db.close();
    // Signet's one JSON-aggregated detail statement, through its repository function and Kysely
    // (its connection as Signet opens it: the label's pragmas apply to the lines above only).
    if (tuned) continue;
    const signet = createDb({ databaseUrl: undefined, sqliteFile: file });
    await time(SIGNET_DETAIL, () => {
      const org = pick(seeded.orgs);
      return findDocumentDetail(signet.db, 'sqlite', org.id, pick(org.documents));
    });
    await time(SIGNET_LIST, () => {
      const org = pick(seeded.orgs);
      const { status, search, limit } = listFilters();
      return listDocuments(signet.db, org.id, { status, search }, { list: 'documents', limit });
    });
    await signet.close();
  }
  const medianOf = (runs: number[]) => {
    const sorted = runs.slice(1).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  for (const [what, runs] of figures) {
    const median = medianOf(runs);
    console.log(
      `${median.toFixed(1).padStart(8)} µs  ${what}; rounds ${runs.map((r) => r.toFixed(0)).join(' ')}`,
    );
  }
  // create-under-load's cycle with nothing but these statements: its 45 reading connections
  // (80% details, 20% lists) each get one answer for each of the 5 creating connections' one,
  // so the statements alone bound its creates a second at 5 ÷ (45 reads + 5 creates).
  const median = (what: string) => medianOf(figures.get(`${what} (SQLite defaults)`) ?? []);
  const create = median('create: one transaction, 4 inserts and a select');
  const cycle = (detail: string, list: string) =>
    45 * (0.8 * median(detail) + 0.2 * median(list)) + 5 * create;
  for (const [whose, us] of [
    [
      "the anchor's statements",
      cycle(
        'detail: document, signers, fields, attachments',
        'list page: random filters and limit as read-mix',
      ),
    ],
    ["Signet's detail and list, the anchor's create", cycle(SIGNET_DETAIL, SIGNET_LIST)],
  ] as const)
    console.log(
      `create-under-load's cycle, ${whose} alone: ${Math.round(us)} µs, at most ${Math.round((5 * 1e6) / us)} creates a second`,
    );
  console.log(await committedWithinOneTurn(file));
} finally {
  await bench.drop();
}

/**
 * Whether a transaction through Signet's handle (Kysely on the synchronous driver) commits before
 * the event loop's next turn, where another request's read would run: if it does, no read ever
 * waits behind a commit, and a second connection for reads has nothing to win.
 */
async function committedWithinOneTurn(file: string): Promise<string> {
  const signet = createDb({ databaseUrl: undefined, sqliteFile: file });
  let committed = 0;
  const tries = 50;
  for (let i = 0; i < tries; i++) {
    const key = `turn-${i}`;
    const transaction = signet.db.transaction().execute(async (trx) => {
      for (let j = 0; j < 6; j++)
        await trx
          .insertInto('settings')
          .values({ key: `${key}-${j}`, value: 'v' })
          .execute();
    });
    const probe = new Promise<void>((resolve) =>
      setImmediate(async () => {
        const row = await signet.db
          .selectFrom('settings')
          .select('key')
          .where('key', '=', `${key}-5`)
          .executeTakeFirst();
        if (row) committed++;
        resolve();
      }),
    );
    await Promise.all([transaction, probe]);
  }
  await signet.close();
  return `a read in the next turn of the event loop found a 6-statement transaction committed ${committed} of ${tries} times`;
}
