import type { TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile } from '../templates/setup.ts';

/** A template with an open role "Client", a fixed "Witness", a signature, an editable and a read-only prefill field. */
export async function bulkTemplate(
  t: Pick<TestApp, 'request'> & Parameters<typeof giveTemplateFile>[0],
): Promise<string> {
  const res = await createTemplateVia(t);
  await giveTemplateFile(t, res);
  return res;
}

async function createTemplateVia(t: Pick<TestApp, 'request'>): Promise<string> {
  return createTemplate(t as TestApp, {
    name: 'Offer letter',
    roles: [
      { name: 'Client' },
      { name: 'Witness', signerName: 'Wendy Witness', signerEmail: 'wendy@example.test' },
    ],
    fields: [
      field({ label: 'Sign here' }),
      field({ type: 'text', label: 'Company', y: 30, required: false }),
      field({ type: 'text', label: 'Reference', y: 40, readOnly: true, required: false }),
      field({ type: 'number', label: 'Salary', y: 50, required: false }),
      field({ label: 'Witness signature', assignedTo: 1, y: 70 }),
    ],
  });
}

export const clientRow = (n: number, extra: Record<string, unknown> = {}) => ({
  signers: [{ role: 'Client', name: `Client ${n}`, email: `client${n}@example.test` }],
  ...extra,
});
