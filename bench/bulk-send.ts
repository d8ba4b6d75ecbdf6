/**
 * `npm run bench -- bulk-send`: a 10,000-row bulk send against `signet serve` in its own process
 * (SQLite, and PostgreSQL when BENCH_DATABASE_URL is set), mail going over SMTP to a sink in this
 * process. Prints: how long the 202 took, how long until every document was created and sent, how
 * long until every invitation reached the SMTP peer, and the p99 of API reads made meanwhile.
 * Goals: 202 < 2 s; documents and invitations < 60 s; API p99 < 50 ms.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { createApiKey, createOrganization } from '../src/modules/orgs/orgs.service.ts';
import { SCOPES } from '../src/http/auth.ts';
import { createStorage } from '../src/storage/create-storage.ts';
import { loadConfig } from '../src/config.ts';
import { openBenchDatabase, percentile, startSignet } from './harness.ts';
import { PDFDocument } from 'pdf-lib';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 10_000);
const MAIL_RATE = process.env.BENCH_MAIL_RATE ?? '1000';

async function smtpCounter(): Promise<{
  port: number;
  count: () => number;
  close: () => Promise<void>;
}> {
  let n = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    // Signet keeps pooled SMTP sessions open: a stop ends them (421) at once, as a relay going down would.
    closeTimeout: 200,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        n++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  // A client session reset (a server process stopped with pooled sessions open) is not the bench's failure.
  server.on('error', () => undefined);
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    count: () => n,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function run(kind: 'sqlite' | 'postgres', perfOff: string) {
  const db = await openBenchDatabase(kind, process.env.BENCH_DATABASE_URL);
  const smtp = await smtpCounter();
  try {
    const org = await createOrganization(db.handle.db, {
      name: 'Bench',
      adminEmail: 'admin@bench.test',
    });
    const { key } = await createApiKey(db.handle.db, { orgId: org.id, scopes: [...SCOPES] });
    // A template with one open role and a file, written the way an upload leaves it.
    const pdf = await PDFDocument.create();
    pdf.addPage([595, 842]);
    const bytes = Buffer.from(await pdf.save());
    const storage = createStorage(loadConfig({ DATA_DIR: db.dataDir }));
    const fileKey = `templates/bench/${randomBytes(6).toString('hex')}.pdf`;
    await storage.put(fileKey, Readable.from(bytes), 'application/pdf');
    await db.handle.close();
    // BENCH_PERF_OFF measures the server with mechanisms switched off (PERF_OFF=mail-layout-cache…);
    // BENCH_NODE_ARGS=--cpu-prof writes its profile (bench/profile-summary.ts reads it).
    const server = await startSignet(
      {
        ...db.env,
        SECRET_KEY: randomBytes(32).toString('hex'),
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_RATE_PER_SECOND: MAIL_RATE,
        ...(perfOff ? { PERF_OFF: perfOff } : {}),
      },
      process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
    );
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: auth,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (!res.ok)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json.data;
    };
    try {
      const tpl = await call('POST', '/api/v1/templates', {
        name: 'Bench offer',
        roles: [{ name: 'Client' }],
        fields: [
          { type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 5 },
          {
            type: 'text',
            label: 'Company',
            page: 1,
            x: 10,
            y: 30,
            width: 30,
            height: 4,
            required: false,
          },
        ],
      });
      // The upload's result, set directly: the bench measures the bulk send, not the upload.
      const { createDb } = await import('../src/db/create-db.ts');
      const handle = createDb({
        databaseUrl: db.env.DATABASE_URL,
        sqliteFile: `${db.dataDir}/signet.db`,
      });
      await handle.db
        .updateTable('templates')
        .set({
          file_key: fileKey,
          original_file_key: fileKey,
          original_content_type: 'application/pdf',
          file_size: bytes.length,
          page_count: 1,
          document_hash: 'bench',
        })
        .where('id', '=', tpl.id)
        .execute();
      await handle.close();

      const rows = Array.from({ length: ROWS }, (_, i) => ({
        signers: [{ role: 'Client', name: `Recipient ${i}`, email: `r${i}@bench.test` }],
        values: { Company: `Company ${i}` },
      }));
      const t0 = performance.now();
      const created = await call('POST', '/api/v1/bulk-sends', {
        templateId: tpl.id,
        name: 'Bench',
        rows,
      });
      const acceptMs = performance.now() - t0;

      // Reads while the job runs: one at a time, every 20 ms.
      const latencies: number[] = [];
      let documentsMs = 0;
      let mailMs = 0;
      const deadline = t0 + 300_000;
      while (performance.now() < deadline && (documentsMs === 0 || mailMs === 0)) {
        const s = performance.now();
        const bulk = await call('GET', `/api/v1/bulk-sends/${created.id}`);
        await call('GET', `/api/v1/documents?bulkSendId=${created.id}&limit=25`);
        latencies.push((performance.now() - s) / 2);
        if (!documentsMs && bulk.status === 'completed') documentsMs = performance.now() - t0;
        if (!mailMs && smtp.count() >= ROWS) mailMs = performance.now() - t0;
        await new Promise((r) => setTimeout(r, 20));
      }
      const result = {
        database: kind,
        rows: ROWS,
        acceptMs: Math.round(acceptMs),
        documentsSentMs: Math.round(documentsMs) || null,
        invitationsDeliveredMs: Math.round(mailMs) || null,
        invitationsSeen: smtp.count(),
        apiP50Ms: Number(percentile(latencies, 50).toFixed(1)),
        apiP99Ms: Number(percentile(latencies, 99).toFixed(1)),
        mailRatePerSecond: Number(MAIL_RATE),
        perfOff,
        loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
        goals: 'accept < 2000 ms; documents and invitations < 60000 ms; API p99 < 50 ms',
      };
      console.log(JSON.stringify(result));
      return result;
    } finally {
      await server.stop();
    }
  } finally {
    await smtp.close();
    await db.drop();
  }
}

/**
 * SQLite, then PostgreSQL when BENCH_DATABASE_URL is set; BENCH_BULK_SKIP_SQLITE=1 runs PostgreSQL
 * only. Each database runs as shipped and then a row at a time (PERF_OFF=bulk-groups), and the
 * ratio of the two is printed; BENCH_PERF_OFF runs only the server with those mechanisms off.
 */
export async function bulkSendBench(): Promise<void> {
  const kinds = [
    ...(process.env.BENCH_BULK_SKIP_SQLITE ? [] : ['sqlite' as const]),
    ...(process.env.BENCH_DATABASE_URL ? ['postgres' as const] : []),
  ];
  for (const kind of kinds) {
    if (process.env.BENCH_PERF_OFF) {
      await run(kind, process.env.BENCH_PERF_OFF);
      continue;
    }
    const shipped = await run(kind, '');
    const rowByRow = await run(kind, 'bulk-groups');
    const ratio = (a: number | null, b: number | null) =>
      a && b ? Number((b / a).toFixed(2)) : null;
    console.log(
      JSON.stringify({
        database: kind,
        rowAtATimeOverShipped: {
          documentsSent: ratio(shipped.documentsSentMs, rowByRow.documentsSentMs),
          invitationsDelivered: ratio(
            shipped.invitationsDeliveredMs,
            rowByRow.invitationsDeliveredMs,
          ),
        },
      }),
    );
  }
}
