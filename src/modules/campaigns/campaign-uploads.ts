import type { AppDeps } from '../../deps.ts';
import type { Executor } from '../../db/database.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { HOUR } from '../../http/counters.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { writeAudit } from '../audit/audit.ts';
import { discardObjects } from '../documents-core/file-intake.ts';
import { intakeFieldFile, type FieldUpload } from '../signing/signer-uploads.ts';
import { openCampaign, visitorFields } from './public.service.ts';

/*
 * A campaign visitor's files (README, "Signer file uploads"): a `file` field of the first role takes its file before
 * the document exists, through PUT /api/v1/public/campaigns/{slug}/fields/{fieldId}/file, with the
 * signing page's limits and checks (signer-uploads.ts intakeFieldFile). The file is kept as a
 * campaign upload named by the attachment id it will keep; the submission names that id as the
 * field's value and takes the upload (it becomes the new document's attachment, once: the upload
 * row is deleted in the same transaction). Uploads no submission took are purged after a day.
 */

/** Uploads to one form from one IP address per hour (a visitor may replace a file a few times). */
const CAMPAIGN_UPLOADS_PER_IP_HOUR = 30;
/** How long an upload waits for its submission before the retention purge removes it. */
export const CAMPAIGN_UPLOAD_TTL_MS = 24 * HOUR;

/** Stores a visitor's file for one of the form's `file` fields; answers the attachment id the submission names. */
export async function uploadCampaignFile(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'counters'>,
  slug: string,
  fieldId: string,
  upload: FieldUpload,
  meta: RequestMeta,
): Promise<{ attachmentId: string }> {
  const open = await openCampaign(deps, slug);
  const { campaign } = open;
  const field = visitorFields(open).find((f) => f.id === fieldId);
  if (!field) throw notFound('Field');
  if (field.type !== 'file')
    throw invalidState(`Field ${fieldId} is a ${field.type} field, not a file field`);
  if (campaign.require_kyc === 1)
    throw invalidState(
      'This form verifies your identity first; attach the file on your signing page',
    );
  // Each upload costs up to 10 MB of storage until it is submitted or purged: bounded per form
  // (twice its submissions) and per address.
  await deps.counters.takeAll(
    [
      {
        key: `campaign-upload:${campaign.id}`,
        max: 2 * deps.config.limits.campaignSubmissionsPerHour,
        what: 'file uploads per hour to this form',
      },
      {
        key: `campaign-upload:${campaign.id}:${meta.ipAddress}`,
        max: CAMPAIGN_UPLOADS_PER_IP_HOUR,
        what: 'file uploads per hour to this form from one address',
      },
    ],
    HOUR,
  );
  const stored = await intakeFieldFile(
    deps,
    upload,
    field.label,
    (id, name) => `orgs/${campaign.org_id}/campaigns/${campaign.id}/uploads/${id}/${name}`,
  );
  try {
    await deps.db
      .insertInto('campaign_uploads')
      .values({
        id: stored.attachmentId,
        campaign_id: campaign.id,
        field_id: field.id,
        name: stored.name,
        file_key: stored.key,
        content_type: stored.contentType,
        file_size: stored.file.size,
        sha256: stored.file.sha256,
        created_at: deps.clock.now().toISOString(),
      })
      .execute();
  } catch (err) {
    await discardObjects(deps.storage, [stored.key]);
    throw err;
  }
  return { attachmentId: stored.attachmentId };
}

/** The uploads of this campaign that `values` names, by template field id (for resolveValues). */
export async function namedUploads(
  db: Executor,
  campaignId: string,
  values: Record<string, unknown>,
): Promise<Map<string, { id: string }>> {
  const ids = Object.values(values).filter(
    (v): v is string => typeof v === 'string' && v.startsWith('att_'),
  );
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('campaign_uploads')
    .select(['id', 'field_id'])
    .where('campaign_id', '=', campaignId)
    .where('id', 'in', ids)
    .execute();
  // Only an upload made for the field that names it counts.
  return new Map(
    rows.filter((r) => values[r.field_id] === r.id).map((r) => [r.field_id, { id: r.id }]),
  );
}

/**
 * Inside the submission's transaction: the named uploads become attachments of the new document
 * (the visitor's, on the copied fields), and leave the campaign's uploads. An upload another
 * submission took meanwhile fails this one (400), so no file belongs to two documents.
 */
export async function takeUploads(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  target: {
    orgId: string;
    documentId: string;
    signerId: string;
    who: string;
    fieldIds: ReadonlyMap<string, string>;
    campaignId: string;
  },
  uploads: ReadonlyMap<string, { id: string }>,
  meta: RequestMeta,
): Promise<void> {
  for (const [templateFieldId, { id }] of uploads) {
    const upload = await trx
      .deleteFrom('campaign_uploads')
      .where('id', '=', id)
      .where('campaign_id', '=', target.campaignId)
      .returningAll()
      .executeTakeFirst();
    if (!upload) {
      const path = `body.values.${templateFieldId}`;
      throw new AppError('validation_error', `${path} names a file already submitted`, [
        { path, message: 'names a file already submitted; attach it again' },
      ]);
    }
    const fieldId = target.fieldIds.get(templateFieldId)!;
    await trx
      .insertInto('attachments')
      .values({
        id,
        document_id: target.documentId,
        name: upload.name,
        file_key: upload.file_key,
        content_type: upload.content_type,
        file_size: upload.file_size,
        created_at: upload.created_at,
        kind: 'signer_upload',
        sha256: upload.sha256,
        signer_id: target.signerId,
        field_id: fieldId,
      })
      .execute();
    await writeAudit(trx, deps.clock, {
      orgId: target.orgId,
      documentId: target.documentId,
      action: 'signer.file_uploaded',
      details: `${target.who} attached "${upload.name}" (${upload.content_type}, ${upload.file_size} bytes, SHA-256 ${upload.sha256}) to field ${fieldId}`,
      meta,
    });
  }
}

/**
 * Removes uploads no submission took within CAMPAIGN_UPLOAD_TTL_MS; returns how many. The row goes
 * first, so a submission taking the upload at that moment either gets it whole or fails; a crash
 * before the files are deleted leaves unreferenced files, never an attachment without its file.
 */
export async function purgeUnclaimedUploads(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  before: string,
  limit: number,
): Promise<number> {
  const stale = await deps.db
    .selectFrom('campaign_uploads')
    .select('id')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  if (stale.length === 0) return 0;
  const ids = stale.map((u) => u.id);
  const gone = await deps.db
    .deleteFrom('campaign_uploads')
    .where('id', 'in', ids)
    .returning('file_key')
    .execute();
  await discardObjects(
    deps.storage,
    gone.map((u) => u.file_key),
  );
  return gone.length;
}
