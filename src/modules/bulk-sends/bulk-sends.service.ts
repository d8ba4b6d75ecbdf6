import type { AppDeps } from '../../deps.ts';
import type { Insertable } from 'kysely';
import type { BulkSendRowsTable, BulkSendStatus } from '../../db/database.ts';
import { AppError, invalidState, notFound, validation } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../queue/queue.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { fieldBeyondPages } from '../documents-core/fields.rules.ts';
import { loadTemplateParts } from '../templates/template-copy.ts';
import { csvToRows, type CsvTable } from './bulk-csv.ts';
import { openRoles, validateRows, type RowNaming } from './bulk-rows.ts';
import { cancelBulkSendRows } from './bulk-send-status.ts';
import * as repo from './bulk-sends.repository.ts';
import type {
  BulkRowT,
  BulkSettings,
  CreateBulkSendInput,
  ListBulkSendsQueryT,
} from './bulk-sends.schemas.ts';

/** Rows per background job: several instances share a bulk send job by job, and a job ends well inside its lease. */
const ROWS_PER_JOB = 100;

/** What the job needs besides the rows: the shared settings and who sent it (for the audit log). */
export interface StoredSettings {
  settings: BulkSettings;
  meta: RequestMeta;
}

interface Actor {
  orgId: string;
  meta: RequestMeta;
}

/** The template must be the organization's, have a file and fields, and every field must have a role to fill it. */
async function loadSendableTemplate(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  templateId: string,
  path: string,
) {
  const parts = await loadTemplateParts(deps.db, orgId, templateId);
  if (!parts) throw validation(path, 'is not a template of your organization');
  if (!parts.template.file_key)
    throw new AppError('missing_file', 'The template has no file yet; upload one first');
  if (parts.fields.length === 0)
    throw new AppError('missing_fields', 'The template has no fields; add at least one');
  const offPage = fieldBeyondPages(parts.fields, parts.template.page_count);
  if (offPage)
    throw invalidState(
      `Template field ${offPage.id} is on page ${offPage.page}, but the file has ${parts.template.page_count} page(s)`,
    );
  const orders = new Set([
    ...openRoles(parts.roles).map((r) => r.order),
    ...parts.roles.filter((r) => r.signer_email).map((r) => r.position),
  ]);
  const orphan = parts.fields.find((f) => !orders.has(f.assigned_to));
  if (orphan)
    throw invalidState(
      `Template field ${orphan.id} is assigned to order ${orphan.assigned_to}, which no template role has`,
    );
  return parts;
}

/**
 * Validates every row, then stores the bulk send, its rows and the jobs that create and send
 * their documents, in one transaction: a request with one bad row creates nothing, and an
 * accepted one is sent even if this process dies right after answering.
 */
async function createBulkSend(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  input: { templateId: string; name?: string; settings: BulkSettings } & (
    | { rows: BulkRowT[] }
    | { csv: CsvTable }
  ),
) {
  const naming: RowNaming = 'csv' in input ? 'csv' : 'json';
  const templatePath = naming === 'csv' ? 'query.templateId' : 'body.templateId';
  const parts = await loadSendableTemplate(deps, actor.orgId, input.templateId, templatePath);
  const { expiresAt } = input.settings;
  if (expiresAt && Date.parse(expiresAt) <= deps.clock.now().getTime())
    throw validation('body.expiresAt', 'must be in the future');
  const rows =
    'csv' in input
      ? csvToRows(
          input.csv,
          openRoles(parts.roles).map((r) => r.name),
          parts.fields.map((f) => f.label),
        )
      : input.rows;
  const name = input.name ?? parts.template.name;
  const stored = validateRows(
    rows,
    parts.roles,
    parts.fields,
    naming,
    name,
    input.settings.otpMethod === 'sms',
  );

  const now = deps.clock.now().toISOString();
  const id = newId('bsd');
  const row = {
    id,
    org_id: actor.orgId,
    template_id: input.templateId,
    name,
    status: 'queued' as const,
    total: stored.length,
    sent: 0,
    failed: 0,
    settings: JSON.stringify({
      settings: input.settings,
      meta: actor.meta,
    } satisfies StoredSettings),
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  const rowRecords: Insertable<BulkSendRowsTable>[] = stored.map((r, position) => ({
    bulk_send_id: id,
    position,
    data: JSON.stringify(r),
    status: 'pending',
    document_id: null,
    error: null,
    updated_at: now,
  }));
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertBulkSend(trx, row, rowRecords);
    for (let from = 0; from < stored.length; from += ROWS_PER_JOB) {
      await enqueueJob(trx, deps.clock, 'bulk_send', {
        bulkSendId: id,
        from,
        to: Math.min(stored.length, from + ROWS_PER_JOB),
      });
    }
  });
  return repo.toBulkSend(row);
}

/** The CSV form: `templateId` and `name` come from the query string. */
export async function createBulkSendFromCsv(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  query: { templateId?: string; name?: string },
  csv: CsvTable,
) {
  if (!query.templateId) throw validation('query.templateId', 'is required with a text/csv body');
  return createBulkSend(deps, actor, {
    templateId: query.templateId,
    name: query.name,
    settings: {},
    csv,
  });
}

export async function createBulkSendFromJson(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  body: CreateBulkSendInput,
) {
  const { templateId, name, rows, ...settings } = body;
  return createBulkSend(deps, actor, { templateId, name, settings, rows });
}

export async function getBulkSend(deps: Pick<AppDeps, 'db'>, orgId: string, id: string) {
  const row = await repo.findBulkSend(deps.db, orgId, id);
  if (!row) throw notFound('Bulk send');
  return repo.toBulkSend(row);
}

export async function listBulkSends(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  query: ListBulkSendsQueryT,
) {
  const { rows, meta } = await repo.listBulkSends(
    deps.db,
    orgId,
    { status: query.status as BulkSendStatus | undefined },
    { list: 'bulk-sends', limit: query.limit, cursor: query.cursor },
  );
  return { data: rows.map(repo.toBulkSend), meta };
}

/**
 * Stops the rows not sent yet. Documents already sent stay out for signature, unless
 * `cancelDocuments`: then a background job cancels each of them as `POST /documents/{id}/cancel`
 * does (its signers are notified). 409 once the bulk send is completed or cancelled.
 */
export async function cancelBulkSend(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  id: string,
  cancelDocuments: boolean,
) {
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.findBulkSend(trx, actor.orgId, id);
    if (!row) throw notFound('Bulk send');
    const now = deps.clock.now().toISOString();
    if (!(await cancelBulkSendRows(trx, id, now)))
      throw invalidState(`Cannot cancel a ${row.status} bulk send`);
    if (cancelDocuments) await enqueueJob(trx, deps.clock, 'bulk_send_cancel', { bulkSendId: id });
  });
  return getBulkSend(deps, actor.orgId, id);
}
