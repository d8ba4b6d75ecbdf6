import type { AppDeps } from '../../deps.ts';
import { matchAcceptLanguage } from '../../i18n/locales.ts';
import type { CampaignRow, SignerRow } from '../../db/database.ts';
import { AppError, notFound, validation } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { documentEventData } from '../documents-core/document-access.ts';
import { insertDocument } from '../documents-core/documents.repository.ts';
import { newDocumentRow } from '../documents-core/new-document-row.ts';
import { emitEvent } from '../events/emit.ts';
import { insertFields } from '../documents-core/fields.repository.ts';
import { insertSigners } from '../documents-core/signers.repository.ts';
import { moveSigner } from '../documents-core/signer-status.ts';
import { isTurnOf } from '../documents-core/signing-rules.ts';
import { issueLink } from '../signing/signing-links.ts';
import { mailYourTurn } from '../signing/signing-flow.ts';
import { completeSigning } from '../signing/signing.service.ts';
import { resolveValues } from '../signing/signing-values.ts';
import { HOUR } from '../../http/counters.ts';
import { SUBMITTER_SEPARATOR } from '../../mail/templates.ts';
import {
  copyFields,
  copyTemplateFile,
  discardFiles,
  signerRow,
} from '../templates/template-copy.ts';
import { closeCampaign } from './campaign-closing.ts';
import { consumeCampaignOtp, verifyCampaignOtp } from './campaign-otp.ts';
import { namedUploads, takeUploads } from './campaign-uploads.ts';
import * as repo from './campaigns.repository.ts';
import { toCampaign } from './campaigns.mappers.ts';
import {
  asFieldRow,
  openCampaign,
  unavailability,
  unavailableError,
  visitorFields,
} from './public.service.ts';
import type { SubmissionBodyT, SubmissionResultT } from './public.schemas.ts';

/*
 * A public submission: a document made from the campaign's template whose first signer is the
 * visitor, who signs it at once through the signing API's own completion path (completeSigning),
 * so the signed PDF, audit trail, events and mails are those of any signed document. Later roles
 * with fixed signers are then invited by email like on any document.
 *
 * The submission slot is taken by a conditional UPDATE in the transaction that creates the
 * document (repo.takeSubmissionSlot): concurrent submissions never exceed `maxSubmissions`, and the
 * one that fills the last slot closes the campaign and emits `campaign.closed`.
 */

const MAX_NAME = 200;

/**
 * `Campaign name: Visitor name`, cut to the document name limit. Mail subjects carry only what
 * comes before the separator (mail/templates.ts, subjectName): never what the visitor typed.
 */
function documentName(campaign: CampaignRow, visitor: string): string {
  const name = `${campaign.name}${SUBMITTER_SEPARATOR}${visitor.trim()}`;
  return name.length <= MAX_NAME ? name : `${name.slice(0, MAX_NAME - 1)}…`;
}

/** The token of a signing link URL (`PUBLIC_URL/sign/{token}`). */
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** Creates the submission; see the module comment. */
export async function submitToCampaign(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'secret' | 'counters'>,
  slug: string,
  input: SubmissionBodyT,
  meta: RequestMeta,
  acceptLanguage?: string,
): Promise<SubmissionResultT> {
  const open = await openCampaign(deps, slug);
  const { campaign, parts, plan } = open;
  const kyc = campaign.require_kyc === 1;
  if (campaign.collect_phone === 1 && !input.phone) throw validation('body.phone', 'is required');
  // `values` defaults to {} (the signing API's schema), so only a non-empty one is a mistake here.
  const hasValues = Object.keys(input.values ?? {}).length > 0;
  if (kyc && (hasValues || input.signature !== undefined)) {
    throw validation(
      hasValues ? 'body.values' : 'body.signature',
      'is not taken by this form: it verifies your identity first; fill in and sign the document at the signingUrl of the answer',
    );
  }

  // Everything the visitor can get wrong is refused before a slot is taken or a file copied: the
  // values get the check completeSigning makes below, on the template's fields.
  // A `file` field's value is the attachment id its upload answered (campaign-uploads.ts).
  const uploads = kyc
    ? new Map<string, { id: string }>()
    : await namedUploads(deps.db, campaign.id, input.values ?? {});
  if (!kyc)
    resolveValues(
      visitorFields(open).map(asFieldRow),
      { values: input.values ?? {}, signature: input.signature },
      uploads,
    );
  if (campaign.require_otp === 1) await verifyCampaignOtp(deps, campaign, input.email, input.otp);
  // Each submission mails its address (invitations, the signed copy): bounded per form and per address across forms.
  const { campaignSubmissionsPerHour, addressSubmissionsPerHour } = deps.config.limits;
  await deps.counters.takeAll(
    [
      {
        key: `submit:address:${input.email.trim().toLowerCase()}`,
        max: addressSubmissionsPerHour,
        what: 'submissions per hour from one email address',
      },
      {
        key: `submit:campaign:${campaign.id}`,
        max: campaignSubmissionsPerHour,
        what: 'submissions per hour to this form',
      },
    ],
    HOUR,
  );

  const documentId = newId('doc');
  const { columns, written } = await copyTemplateFile(deps, parts.template, documentId);
  let link: string;
  let fieldIds: Map<string, string>;
  try {
    ({ link, fieldIds } = await deps.db.transaction().execute(async (trx) => {
      const now = deps.clock.now().toISOString();
      const taken = await repo.takeSubmissionSlot(trx, campaign.id, now);
      if (!taken) {
        const current = await repo.findCampaign(trx, campaign.org_id, campaign.id);
        if (!current) throw notFound('Campaign');
        throw unavailableError(
          unavailability(current, deps.clock.now().getTime()) ?? {
            reason: 'closed',
            title: 'This form is closed',
            message: '',
          },
        );
      }
      if (
        campaign.require_otp === 1 &&
        !(await consumeCampaignOtp(trx, campaign.id, input.email))
      ) {
        throw new AppError('invalid_otp', 'This code was already used; request a new one');
      }

      const doc = newDocumentRow({
        id: documentId,
        orgId: campaign.org_id,
        name: documentName(campaign, input.name),
        status: 'pending',
        signingType: parts.template.signing_type,
        requireKyc: kyc,
        allowReassign: parts.template.allow_reassign === 1,
        now,
        sentAt: now,
        templateId: parts.template.id,
        campaignId: campaign.id,
      });
      Object.assign(doc, columns);
      await insertDocument(trx, doc);
      const visitor = {
        ...signerRow(
          documentId,
          {
            order: plan.submitterOrder,
            group: plan.submitterGroup,
            name: input.name.trim(),
            email: input.email,
            phone: input.phone,
          },
          now,
        ),
        status: 'sent' as const,
        // An address typed by a visitor is proven only by a code entered from it: until then the
        // signed copy goes to it as an expiring link, never as an attachment.
        email_unproven: campaign.require_otp === 1 ? null : 1,
        // The visitor's mails (the signed copy) speak the language of their page: the campaign's,
        // else their browser's (the page sends its own first); null: the organization's.
        locale: campaign.locale ?? matchAcceptLanguage(acceptLanguage) ?? null,
      };
      // A later role's signer reads its role's locale, else the document's, else the organization's.
      const fixed = plan.fixedSigners.map((s) => signerRow(documentId, s, now));
      await insertSigners(trx, [visitor, ...fixed]);
      const fieldRows = copyFields(documentId, parts.fields, now);
      await insertFields(trx, fieldRows);
      const fieldIds = new Map(parts.fields.map((f, i) => [f.id, fieldRows[i].id!]));
      const target = {
        orgId: campaign.org_id,
        documentId,
        signerId: visitor.id!,
        who: `${visitor.name} <${visitor.email}>`,
        fieldIds,
        campaignId: campaign.id,
      };
      await takeUploads(trx, deps, target, uploads, meta);

      const who = `${visitor.name} <${visitor.email}>`;
      await writeAudit(trx, deps.clock, {
        orgId: campaign.org_id,
        documentId,
        action: 'document.created',
        details: `Submitted by ${who} through campaign "${campaign.name}" (${campaign.id})${campaign.require_otp === 1 ? '; email address confirmed with an emailed code' : ''}`,
        meta,
      });
      await writeAudit(trx, deps.clock, {
        orgId: campaign.org_id,
        documentId,
        action: 'document.sent',
        details: `Signing by ${[who, ...fixed.map((s) => `${s.name} <${s.email}>`)].join(', ')}`,
        meta,
      });
      const data = await documentEventData(trx, campaign.org_id, documentId);
      await emitEvent(trx, deps.clock, campaign.org_id, 'document.created', data);
      await emitEvent(trx, deps.clock, campaign.org_id, 'document.sent', data);
      await emitEvent(trx, deps.clock, campaign.org_id, 'campaign.submission.created', {
        ...data,
        campaign: toCampaign(taken, deps.config.publicUrl),
      });
      if (taken.submission_count >= taken.max_submissions)
        await closeCampaign(trx, deps, taken, 'max_submissions');

      // Parallel signing: the fixed signers may sign at once, so they are invited now; in sequential
      // mode those sharing the visitor's group are, and the completion path invites the others in turn.
      const rows = [visitor, ...fixed] as SignerRow[];
      for (const s of fixed) {
        if (isTurnOf(doc, rows, s as SignerRow)) {
          await moveSigner(trx, s.id!, ['pending'], 'sent', {});
          await mailYourTurn(trx, deps, doc, { ...(s as SignerRow), status: 'sent' });
        }
      }
      // With KYC the visitor is mailed their link too: they sign once their identity is approved.
      if (kyc) await mailYourTurn(trx, deps, doc, visitor as SignerRow);
      const issued = await issueLink(trx, deps, doc, { id: visitor.id! });
      return { link: issued.url, fieldIds };
    }));
  } catch (err) {
    await discardFiles(deps, written);
    throw err;
  }

  const redirectUrl = campaign.redirect_url;
  if (kyc)
    return { id: documentId, status: 'pending', allSigned: false, redirectUrl, signingUrl: link };
  const documentValues = Object.fromEntries(
    Object.entries(input.values ?? {}).map(([templateFieldId, v]) => [
      fieldIds.get(templateFieldId)!,
      v,
    ]),
  );
  const done = await completeSigning(
    deps,
    tokenOf(link),
    { values: documentValues, signature: input.signature },
    meta,
  );
  return {
    id: documentId,
    status: done.documentStatus,
    allSigned: done.allSigned,
    redirectUrl,
    signingUrl: '',
  };
}
