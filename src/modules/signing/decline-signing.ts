import { redirectOf } from '../documents-core/signers.rules.ts';
import type { AppDeps } from '../../deps.ts';
import type { SignerRow } from '../../db/database.ts';
import { invalidState } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { declinedSenderMail } from '../../mail/admin-mails.ts';
import { declinedMail } from '../../mail/templates.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { emitEvent } from '../events/emit.ts';
import { documentEventData } from '../documents-core/document-access.ts';
import { moveDocument, OPEN_DOCUMENT_STATUSES } from '../documents-core/document-status.ts';
import {
  isFinishedSigner,
  moveSigner,
  UNFINISHED_SIGNER_STATUSES,
} from '../documents-core/signer-status.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import * as repo from './signing.repository.ts';
import { signerEventData } from './signing-flow.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { invalidLink, resolveToken } from './signing-links.ts';
import { requireOpen } from '../documents-core/signing-rules.ts';
import type { DeclineInput, DeclineResultT } from './signing.schemas.ts';
import { lockDocument } from '../documents-core/document-lock.ts';

/**
 * The signer declines with a reason: the document becomes `declined`, every other recipient who
 * still had something to do is `cancelled`, and all recipients and the sender are told.
 */
export async function declineSigning(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  token: string,
  input: DeclineInput,
  meta: RequestMeta,
): Promise<DeclineResultT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockDocument(trx, doc.id);
    const current = await repo.findSignerById(trx, signer.id);
    if (!locked || !current) throw invalidLink();
    requireOpen(locked, current);
    const now = deps.clock.now().toISOString();
    const reason = input.reason.trim();
    const changes = {
      decline_reason: reason,
      ip_address: meta.ipAddress,
      user_agent: meta.userAgent,
      geo_city: meta.geoCity,
      geo_country: meta.geoCountry,
      updated_at: now,
    };
    if (!(await moveSigner(trx, current.id, UNFINISHED_SIGNER_STATUSES, 'declined', changes)))
      throw invalidState('You have already finished with this document');
    if (
      !(await moveDocument(trx, locked.id, OPEN_DOCUMENT_STATUSES, 'declined', { updated_at: now }))
    )
      throw invalidState('The document changed status meanwhile');
    const declined: SignerRow = { ...current, ...changes, status: 'declined' };

    const others = (await listSigners(trx, locked.id)).filter((s) => s.id !== current.id);
    const org = await orgMailOf(trx, locked.org_id);
    for (const other of others) {
      if (!isFinishedSigner(other.status))
        await moveSigner(trx, other.id, UNFINISHED_SIGNER_STATUSES, 'cancelled', {
          updated_at: now,
        });
      await enqueueJob(
        trx,
        deps.clock,
        'mail',
        declinedMail({ doc: locked, recipient: other, decliner: declined, ...org }),
      );
    }
    const admin = await repo.findOrgAdmin(trx, locked.org_id);
    if (admin)
      await enqueueJob(
        trx,
        deps.clock,
        'mail',
        declinedSenderMail({ doc: locked, to: admin.admin_email, decliner: declined, reason }),
      );

    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'signer.declined',
      details: `Declined by ${current.name} <${current.email}>: ${reason}`,
      meta,
    });
    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'document.declined',
      details: `Declined by ${current.name}`,
      meta,
    });
    await emitEvent(
      trx,
      deps.clock,
      locked.org_id,
      'signer.declined',
      await signerEventData(trx, locked, declined),
    );
    await emitEvent(
      trx,
      deps.clock,
      locked.org_id,
      'document.declined',
      await documentEventData(trx, locked.org_id, locked.id),
    );
    return {
      documentId: locked.id,
      signerId: current.id,
      status: 'declined',
      documentStatus: 'declined',
      redirectUrl: redirectOf(locked, current),
    };
  });
}
