import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import type { MailMessage } from '../mail/mailer.ts';
import { renderMailHtml, renderMailText } from '../mail/layout.ts';
import { MailLayouts } from '../mail/layout-cache.ts';
import { orgBrandOf } from '../modules/orgs/organization.service.ts';
import { onInvitationUndeliverable } from '../modules/signing/signing-flow.ts';
import { PermanentJobError } from '../queue/queue.ts';

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** An SMTP 5xx reply (unknown mailbox, rejected domain…): retrying the same mail cannot succeed. */
const isPermanentSmtpError = (err: unknown) => {
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/** Job `mail`: sends one message (attachments read from storage); an invitation given up on makes its signer undeliverable. */
export function registerMailJob(jobs: JobRunner, deps: AppDeps): void {
  const layouts = new MailLayouts();
  const renderHtml = deps.config.perfOff.has('mail-layout-cache')
    ? renderMailHtml
    : layouts.render.bind(layouts);
  jobs.register(
    'mail',
    async (
      { storageAttachments, signingInvitation: _invitation, orgId, content, ...message },
      job,
    ) => {
      // The same Message-ID on every attempt of one mail job: a mail re-sent after a crash (sent,
      // then killed before its job was deleted) is recognisably the same message, not a second one.
      const mail: MailMessage = {
        ...message,
        messageId: `<${job.id}@${new URL(deps.config.publicUrl).hostname}>`,
      };
      // Rendered now, not when queued: the organization's current name, colour, logo and Reply-To.
      if (orgId && content) {
        const brand = await orgBrandOf(deps.db, deps.config.publicUrl, orgId);
        mail.text = renderMailText(content, brand.name);
        mail.html = await renderHtml(message.subject, content, brand);
        if (brand.replyTo) mail.replyTo = brand.replyTo;
      }
      if (storageAttachments?.length) {
        mail.attachments = [];
        for (const a of storageAttachments) {
          mail.attachments.push({
            filename: a.filename,
            contentType: a.contentType,
            content: await readAll(await deps.storage.get(a.storageKey)),
          });
        }
      }
      try {
        await deps.mailer.send(mail);
      } catch (err) {
        if (isPermanentSmtpError(err))
          throw new PermanentJobError(err instanceof Error ? err.message : String(err));
        throw err;
      }
    },
    async (payload, error) => {
      if (payload.signingInvitation)
        await onInvitationUndeliverable(
          deps,
          { ...payload.signingInvitation, to: payload.to },
          error,
        );
    },
    // A sent mail's job is deleted; one that failed for good keeps who and what, not its links or codes.
    { keepOnFailure: ({ to, subject }) => ({ to, subject, text: '', bodyDropped: true }) },
  );
}
