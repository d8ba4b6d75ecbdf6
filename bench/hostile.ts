/**
 * `npm run bench -- hostile`: a Signet in its own process (SQLite, a fresh data directory) takes
 * each bomb of test/hostile through its public path while /healthz is polled every 10 ms and the
 * process's resident memory read from /proc. Prints, per bomb, /healthz p99 and the peak RSS next
 * to the same figures with no attack, measured in this one run. Goals: p99 under attack at most
 * 2x the p99 without, peak RSS under 500 MB. Then the public check flooded while a customer
 * works (bench/hostile-verify.ts); `--verify-only` runs only that.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSigningCertificate, signingCertConfig } from '../src/pdf/certificate.ts';
import { api, childEnv, cli, serve, type ChildServer } from '../test/helpers/child-server.ts';
import { samplePdf } from '../test/helpers/factories.ts';
import { dataUrl, objectStreamBomb, pngBomb } from '../test/hostile/bombs.ts';
import { percentile } from './harness.ts';
import { verifyFlood } from './hostile-verify.ts';

interface Phase {
  name: string;
  p99Ms: number;
  peakRssMb: number;
}

function rssMb(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.replace(/\D/g, '')) / 1024 : 0;
}

/** Runs `attack` (at least `minMs`) while probing; returns /healthz p99 and the peak RSS. */
async function measure(
  server: ChildServer,
  name: string,
  minMs: number,
  attack: () => Promise<unknown>,
): Promise<Phase> {
  const times: number[] = [];
  let peak = rssMb(server.process.pid!);
  let running = true;
  const memory = setInterval(() => (peak = Math.max(peak, rssMb(server.process.pid!))), 25);
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await Promise.all([attack(), new Promise((r) => setTimeout(r, minMs))]);
  running = false;
  await probe;
  clearInterval(memory);
  return { name, p99Ms: percentile(times, 99), peakRssMb: peak };
}

/** `npm run bench -- hostile --verify-only`: only the flooded public check (bench/hostile-verify.ts). */
const VERIFY_ONLY = process.argv.includes('--verify-only');

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-hostile-'));
  // In DATA_DIR with its password derived from the development SECRET_KEY there, as the server will open it.
  await loadSigningCertificate(
    await signingCertConfig({
      dataDir,
      signingCertP12: undefined,
      signingCertPassword: undefined,
      secretKey: undefined,
      production: false,
    }),
  );
  const env = childEnv({
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://signet.invalid',
    RATE_LIMIT_PER_MINUTE: '100000',
    // Unset, the server's default (half the cores); set, to compare another bound in a run.
    PUBLIC_VERIFY_QUEUE: process.env.PUBLIC_VERIFY_QUEUE,
  });
  const server = await serve(env);
  try {
    const org = await cli(env, [
      'org',
      'create',
      '--name',
      'Bench',
      '--admin-email',
      'admin@bench.test',
    ]);
    const key = (await cli(env, ['key', 'create', '--org', org.id, '--scopes', 'all']))
      .key as string;
    const onServer = (url: string) => server.url + new URL(url).pathname;
    const upload = async (bytes: Buffer) => {
      const doc = await api(server, key, 'POST', '/api/v1/documents', {
        name: 'Bench',
        signers: [{ name: 'Sam', email: 'sam@example.test' }],
        fields: [
          {
            type: 'signature',
            page: 1,
            x: 10,
            y: 10,
            width: 20,
            height: 5,
            required: true,
            assignedTo: 0,
          },
        ],
      });
      const id = doc.body.data.id as string;
      const ticket = (
        await api(server, key, 'POST', `/api/v1/documents/${id}/upload`, {
          contentType: 'application/pdf',
        })
      ).body.data;
      const res = await fetch(onServer(ticket.uploadUrl), {
        method: 'PUT',
        headers: ticket.headers,
        body: new Uint8Array(bytes),
      });
      await res.arrayBuffer();
      return { id, status: res.status };
    };
    const signAndSettle = async (id: string) => {
      await api(server, key, 'POST', `/api/v1/documents/${id}/send`);
      const detail = (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data;
      const link = await api(
        server,
        key,
        'POST',
        `/api/v1/documents/${id}/signers/${detail.signers[0].id}/link`,
      );
      const token = new URL(link.body.data.url).pathname.split('/').at(-1)!;
      await api(server, null, 'POST', `/api/v1/signing/${token}/complete`, {
        signature: { kind: 'typed', value: 'Sam' },
      });
      for (let i = 0; i < 300; i++) {
        const status = (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data.status;
        if (status !== 'pending') return status as string;
        await new Promise((r) => setTimeout(r, 100));
      }
      return 'pending';
    };
    const honest = await samplePdf(2);
    let sealedId = '';
    if (VERIFY_ONLY) {
      const { id } = await upload(honest);
      sealedId = id;
      console.log('  honest document:', await signAndSettle(id));
    } else {
      // Built before any measuring: building them is this process's work.
      const pdfBomb = await objectStreamBomb(2 * 1024 ** 3);
      const padded = await objectStreamBomb(2 * 1024 ** 3, 11 * 1024 * 1024);
      const image = dataUrl(await pngBomb(20_000, 20_000));
      const phases: Phase[] = [];
      phases.push(await measure(server, 'no attack', 5000, async () => {}));
      // One honest document sealed first: the first sealing and the first mails load code whatever the file.
      phases.push(
        await measure(server, 'an honest document sealed (no attack)', 3000, async () => {
          const { id } = await upload(honest);
          sealedId = id;
          console.log('  honest document:', await signAndSettle(id));
        }),
      );
      phases.push(
        await measure(server, 'PDF inflate bomb at upload (2 MB -> 2 GB)', 3000, async () =>
          console.log('  upload:', (await upload(pdfBomb)).status),
        ),
      );
      // Past 10 MB an upload is read from a copy on disk, not in memory; the same limits refuse it.
      phases.push(
        await measure(
          server,
          'PDF inflate bomb at upload, padded (13 MB -> 2 GB)',
          3000,
          async () => console.log('  padded upload:', (await upload(padded)).status),
        ),
      );
      const honestDoc = await upload(honest);
      phases.push(
        await measure(server, 'PNG 20000x20000 as a drawn signature', 3000, async () => {
          await api(server, key, 'POST', `/api/v1/documents/${honestDoc.id}/send`);
          const detail = (await api(server, key, 'GET', `/api/v1/documents/${honestDoc.id}`)).body
            .data;
          const link = await api(
            server,
            key,
            'POST',
            `/api/v1/documents/${honestDoc.id}/signers/${detail.signers[0].id}/link`,
          );
          const token = new URL(link.body.data.url).pathname.split('/').at(-1)!;
          const res = await api(server, null, 'POST', `/api/v1/signing/${token}/complete`, {
            signature: { kind: 'drawn', value: image },
          });
          console.log('  drawn bomb:', res.status);
        }),
      );
      const base = phases[0];
      console.log(
        `\nhostile: /healthz p99 and server peak RSS, one run (load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores)\n`,
      );
      console.log(['phase', 'p99 ms', 'p99 / no attack', 'peak RSS MB'].join(' | '));
      for (const p of phases)
        console.log(
          [
            p.name,
            p.p99Ms.toFixed(1),
            (p.p99Ms / base.p99Ms).toFixed(2),
            Math.round(p.peakRssMb),
          ].join(' | '),
        );
    }
    // The public check flooded while a customer verifies and reads (bench/hostile-verify.ts).
    const sealed = await fetch(`${server.url}/api/v1/documents/${sealedId}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await verifyFlood(
      server,
      key,
      Buffer.from(await sealed.arrayBuffer()),
      () => `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
    );
  } finally {
    server.process.kill('SIGKILL');
    await server.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
