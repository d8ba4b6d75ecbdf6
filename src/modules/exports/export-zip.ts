import { PassThrough, Readable } from 'node:stream';
import yazl from 'yazl';
import type { AppDeps } from '../../deps.ts';
import { loadSigningCertificate } from '../../pdf/certificate.ts';
import { toAuditEntry } from '../documents-core/documents.mappers.ts';
import { emitEvent } from '../events/emit.ts';
import { complete, fail, IN_PROGRESS, startProcessing } from './export-status.ts';
import * as repo from './exports.repository.ts';
import { EXPORT_TTL_MS } from './exports.schemas.ts';
import { toExport } from './exports.service.ts';

type ExportDeps = Pick<AppDeps, 'db' | 'clock' | 'storage' | 'config' | 'secret' | 'certificate'>;

/** Documents read per page; entries queued in the ZIP writer ahead of the one it writes. */
const PAGE = 50;
const LOOKAHEAD = 64;

const EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
};

/**
 * A name as a ZIP folder or file name: any character, UTF-8 (yazl sets the language-encoding
 * flag), but no path separators, no characters Windows refuses, no control characters, no
 * leading dots, at most 80 characters.
 */
function zipName(name: string, fallback = 'Untitled'): string {
  const clean = name
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}/\\:*?"<>|]/gu, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const short = [...clean].slice(0, 80).join('').trim();
  return short || fallback;
}

/**
 * Writes the organization's export: a ZIP streamed into storage as it is made (never whole in
 * memory), holding per document its original, its signed PDF, its attachments, its audit log
 * as JSON and a summary, plus the certificate the signed PDFs are sealed with. Run again after a
 * crash, it starts over and replaces the same key. Emits `organization.export.completed`.
 */
export async function runExport(deps: ExportDeps, exportId: string): Promise<void> {
  const { db, storage, clock } = deps;
  const row = await repo.findExport(db, exportId);
  if (!row || !IN_PROGRESS.includes(row.status)) return;
  const total = await repo.countDocuments(db, row.org_id);
  if (!(await startProcessing(db, exportId, total, clock.now().toISOString()))) return;

  const key = `exports/${row.org_id}/${exportId}.zip`;
  const zip = new yazl.ZipFile();
  let size = 0;
  const output = new PassThrough();
  output.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  zip.outputStream.pipe(output);
  let failure: unknown = null;
  // Entries are added a page of documents at a time, while the writer is at most LOOKAHEAD behind.
  let added = 0;
  let started = 0;
  let wake: (() => void) | null = null;
  const stored = storage.put(key, output, 'application/zip').catch((err: unknown) => {
    failure = err;
    wake?.();
  });
  zip.on('error', (err: unknown) => {
    failure ??= err;
    output.destroy(err as Error);
    wake?.();
  });
  const lazy = (name: string, open: () => Promise<NodeJS.ReadableStream>, compress: boolean) => {
    added++;
    zip.addReadStreamLazy(name, { compress }, (cb) => {
      started++;
      wake?.();
      open().then(
        (stream) => cb(null, stream),
        (err: unknown) => cb(err, Readable.from([])),
      );
    });
  };
  const json = (name: string, value: unknown) =>
    zip.addBuffer(Buffer.from(`${JSON.stringify(value, null, 2)}\n`), name);
  const file = async (name: string, fileKey: string | null) => {
    if (!fileKey || !(await storage.stat(fileKey))) return;
    lazy(name, () => storage.get(fileKey), false);
  };

  const cert = await loadSigningCertificate(deps.certificate.config).catch(() => null);
  if (cert)
    zip.addBuffer(
      Buffer.from(cert.chain.map((der) => pem(der)).join('')),
      'signing-certificate.pem',
    );
  let processed = 0;
  for (let after = ''; ; ) {
    if (failure) break;
    const docs = await repo.documentsPage(db, row.org_id, after, PAGE);
    for (const doc of docs) {
      const folder = `${zipName(doc.name)} (${doc.id})`;
      json(`${folder}/document.json`, {
        id: doc.id,
        name: doc.name,
        status: doc.status,
        documentHash: doc.document_hash,
        signedFileHash: doc.signed_file_hash,
        createdAt: doc.created_at,
        completedAt: doc.completed_at,
      });
      const ext = EXTENSIONS[doc.original_content_type ?? ''] ?? '';
      await file(`${folder}/original${ext}`, doc.original_file_key);
      await file(`${folder}/signed.pdf`, doc.signed_file_key);
      json(`${folder}/audit-log.json`, (await repo.auditOf(db, doc.id)).map(toAuditEntry));
      const names = new Set<string>();
      for (const att of await repo.attachmentsOf(db, doc.id)) {
        let name = zipName(att.name, att.id);
        if (names.has(name)) name = `${att.id} ${name}`;
        names.add(name);
        await file(`${folder}/attachments/${name}`, att.file_key);
      }
    }
    processed += docs.length;
    await repo.setProgress(db, exportId, processed, clock.now().toISOString());
    while (added - started > LOOKAHEAD && !failure)
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    if (docs.length < PAGE) break;
    after = docs[docs.length - 1].id;
  }
  zip.end();
  await stored;
  if (failure) {
    await storage.delete(key).catch(() => undefined);
    throw failure;
  }
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    const done = await complete(
      trx,
      exportId,
      { key, size },
      now.toISOString(),
      new Date(now.getTime() + EXPORT_TTL_MS).toISOString(),
    );
    if (done)
      await emitEvent(
        trx,
        clock,
        done.org_id,
        'organization.export.completed',
        toExport(deps, done),
      );
  });
}

/** Marks the export failed for good (the job's attempts are spent). */
export async function failExport(deps: Pick<AppDeps, 'db' | 'clock'>, exportId: string) {
  await fail(
    deps.db,
    exportId,
    'The export could not be written (storage kept failing); start a new one',
    deps.clock.now().toISOString(),
  );
}

const pem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
