import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { samplePdf } from '../helpers/factories.ts';
import { SmtpSink, type SinkMessage } from '../helpers/smtp-sink.ts';

export interface SigningTest extends TestApp {
  sink: SmtpSink;
  /** Runs queued jobs (mail over SMTP, finalize) until none is due. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** An app whose mail goes over real SMTP to an in-process sink; addresses starting with `bounce` are refused (550). */
export async function signingApp(env: Record<string, string> = {}): Promise<SigningTest> {
  const sink = await SmtpSink.start({ reject: (address) => address.startsWith('bounce') });
  const database = await createTestDatabase();
  let t: TestApp;
  try {
    t = await buildTestApp({
      env: { SMTP_URL: sink.url, ...env },
      mailer: sink.mailer(database.dataDir),
      database,
    });
  } catch (err) {
    await database.drop();
    await sink.close();
    throw err;
  }
  return {
    ...t,
    sink,
    settle: () => t.drainJobs(),
    stop: async () => {
      await t.close();
      // pg's Pool.end() resolves before its clients have finished disconnecting; dropping the
      // database WITH (FORCE) right away kills them mid-goodbye and they emit an unhandled error.
      await database.handle.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await database.drop();
      await sink.close();
    },
  };
}

let counter = 0;
/** A unique address for this test file run (the sink keeps every message). */
export const address = (name: string) => `${name}-${++counter}@example.test`;

/**
 * Stores a real PDF for the document as the upload would (file key, size, SHA-256, page count):
 * the upload endpoint is another module's, tested there.
 */
export async function attachPdf(t: TestApp, documentId: string, pages = 2): Promise<Buffer> {
  const bytes = await samplePdf(pages, 'Agreement page');
  const key = `documents/${documentId}/original.pdf`;
  await t.app.deps.storage.put(key, Readable.from(bytes), 'application/pdf');
  await t.database.handle.db
    .updateTable('documents')
    .set({
      file_key: key,
      original_file_key: key,
      original_content_type: 'application/pdf',
      file_size: bytes.length,
      page_count: pages,
      document_hash: createHash('sha256').update(bytes).digest('hex'),
    })
    .where('id', '=', documentId)
    .execute();
  return bytes;
}

export interface SentDocument {
  id: string;
  signers: { id: string; email: string; order: number; role: string }[];
  fields: { id: string; type: string; assignedTo: number }[];
}

/**
 * Creates a document with `signers` and `fields` (fields default to one required signature per
 * signer), gives it a PDF and sends it; invitations are delivered before it returns.
 */
export async function sentDocument(
  t: SigningTest,
  opts: {
    signers: Record<string, unknown>[];
    fields?: Record<string, unknown>[];
    body?: Record<string, unknown>;
  },
): Promise<SentDocument> {
  const fields =
    opts.fields ??
    opts.signers
      .map((s, i) => ({ s, i }))
      .filter(({ s }) => s.role !== 'cc')
      .map(({ i }) => ({
        type: 'signature',
        page: 1,
        x: 10,
        y: 10 + i * 10,
        width: 20,
        height: 5,
        required: true,
        assignedTo: i,
      }));
  const created = await t.request('POST', '/api/v1/documents', {
    body: { name: 'Service agreement', signers: opts.signers, fields, ...opts.body },
  });
  if (created.status !== 201)
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  await attachPdf(t, id);
  const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
  if (sent.status !== 200) throw new Error(`send: ${sent.status} ${JSON.stringify(sent.body)}`);
  await t.settle();
  const detail = (await t.request('GET', `/api/v1/documents/${id}`)).body.data;
  return {
    id,
    signers: detail.signers.map((s: any) => ({
      id: s.id,
      email: s.email,
      order: s.order,
      role: s.role,
    })),
    fields: detail.fields.map((f: any) => ({ id: f.id, type: f.type, assignedTo: f.assignedTo })),
  };
}

const LINK = /http:\/\/localhost:3000\/sign\/([A-Za-z0-9_-]{43})/;

/** The signing token in a mail, or throws. */
export function tokenIn(message: SinkMessage | undefined): string {
  const match = message && LINK.exec(message.text);
  if (!match) throw new Error(`No signing link in mail: ${message?.subject ?? '(no mail)'}`);
  return match[1];
}

/** The token of the latest mail to `email` that carries a signing link. */
export function latestToken(t: SigningTest, email: string): string {
  const withLink = t.sink.to(email).filter((m) => LINK.test(m.text));
  return tokenIn(withLink.at(-1));
}

/** A tiny valid PNG (1×1), as a drawn signature's data URL. */
export const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const typed = (value = 'Ada Lovelace') => ({ kind: 'typed', value });

/** Audit actions of a document, oldest first. */
export async function auditActions(t: TestApp, id: string): Promise<string[]> {
  const res = await t.request('GET', `/api/v1/documents/${id}/audit?limit=100`);
  return res.body.data.map((e: { action: string }) => e.action);
}

/** Event types recorded so far for the organization (the outbox), oldest first. */
export async function eventTypes(t: TestApp): Promise<string[]> {
  const rows = await t.database.handle.db
    .selectFrom('events')
    .select(['type', 'id'])
    .where('org_id', '=', t.orgId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.type);
}
