import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { AppDeps } from '../../src/deps.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { field, samplePdf } from '../helpers/factories.ts';

/** Creates a template through the API and returns its id. */
export async function createTemplate(
  t: TestApp,
  body: Record<string, unknown> = {},
  key?: string,
): Promise<string> {
  const res = await t.request('POST', '/api/v1/templates', {
    body: { name: 'Lease', ...body },
    key,
  });
  if (res.status !== 201)
    throw new Error(`createTemplate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** What giveTemplateFile needs: a TestApp, or the storage and database several server processes share. */
type FileTarget = {
  app: { deps: Pick<AppDeps, 'storage'> };
  database: Pick<TestDatabase, 'handle'>;
};

/**
 * Stores a real PDF for the template and sets the columns an upload sets, without going through
 * the upload endpoint (tested in test/files/template-upload.test.ts): for tests about what happens
 * once a template has its file, also on servers in other processes.
 */
export async function giveTemplateFile(
  t: FileTarget,
  templateId: string,
  pages = 1,
): Promise<Buffer> {
  const pdf = await samplePdf(pages, `Template ${templateId}`);
  const key = `templates/${templateId}/original.pdf`;
  await t.app.deps.storage.put(key, Readable.from(pdf), 'application/pdf');
  await t.database.handle.db
    .updateTable('templates')
    .set({
      file_key: key,
      original_file_key: key,
      original_content_type: 'application/pdf',
      file_size: pdf.length,
      page_count: pages,
      document_hash: createHash('sha256').update(pdf).digest('hex'),
    })
    .where('id', '=', templateId)
    .execute();
  return pdf;
}

/** A template with a file, a submitter role (order 0) with a signature and a text field, ready for a campaign. */
export async function readyTemplate(
  t: TestApp,
  opts: { key?: string; body?: Record<string, unknown> } = {},
): Promise<string> {
  const id = await createTemplate(
    t,
    {
      roles: [{ name: 'Applicant' }],
      fields: [
        field({ label: 'Signature' }),
        field({ type: 'text', label: 'City', y: 30, required: false }),
      ],
      ...opts.body,
    },
    opts.key,
  );
  await giveTemplateFile(t, id);
  return id;
}
