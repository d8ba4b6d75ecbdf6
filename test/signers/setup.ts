import type { TestApp } from '../helpers/build-test-app.ts';
import { createDocument, field, signer } from '../helpers/factories.ts';

/**
 * Gives a document a file without the upload endpoint (built separately): sets the columns the
 * upload would set, so `send` finds a file and the page-count rule has a count to check against.
 */
export async function giveFileDirectly(
  t: TestApp,
  documentId: string,
  pageCount: number | null = 1,
): Promise<void> {
  await t.database.handle.db
    .updateTable('documents')
    .set({
      file_key: `documents/${documentId}/original.pdf`,
      file_size: 1234,
      page_count: pageCount,
      document_hash: 'ab'.repeat(32),
    })
    .where('id', '=', documentId)
    .execute();
}

/** A draft with `signers` signers (orders 0…n-1), one field per signer and a file: ready to send. */
export async function readyDocument(
  t: TestApp,
  opts: { signers?: number; body?: Record<string, unknown>; key?: string; tag?: string } = {},
): Promise<string> {
  const n = opts.signers ?? 2;
  const tag = opts.tag ?? Math.random().toString(36).slice(2, 8);
  const signers = Array.from({ length: n }, (_, i) =>
    signer(i, { email: `s${i}-${tag}@example.test` }),
  );
  const fields = Array.from({ length: n }, (_, i) => field({ assignedTo: i }));
  const id = await createDocument(
    t,
    { name: `Doc ${tag}`, signers, fields, ...opts.body },
    opts.key,
  );
  await giveFileDirectly(t, id);
  return id;
}

/** Mail sent so far to `address`. */
export function mailTo(t: TestApp, address: string) {
  return (t.mailer as { sent: { to: string; subject: string; text: string }[] }).sent.filter(
    (m) => m.to === address,
  );
}
