import { composeMail, type OutgoingMail } from '../../mail/templates.ts';

/** Sent to the organization's admin when 20 consecutive failed attempts deactivate a webhook. */
export function webhookDeactivatedMail(args: {
  orgId: string;
  to: string;
  orgName: string;
  webhookId: string;
  url: string;
  failures: number;
  lastError: string;
}): OutgoingMail {
  const url = withoutCredentials(args.url);
  return composeMail(
    args.orgId,
    args.to,
    `Webhook deactivated after ${args.failures} consecutive failures`,
    {
      greeting: 'Hello,',
      paragraphs: [
        `The webhook ${args.webhookId} of ${args.orgName}, which sends events to ${url}, failed ${args.failures} times in a row and has been deactivated. It receives no new events until it is reactivated; the deliveries queued for it are kept and sent when it is.`,
      ],
      quote: { label: 'Last error:', text: args.lastError || 'none recorded' },
      after: [
        `Once the endpoint works again, reactivate it with PATCH /api/v1/webhooks/${args.webhookId} and the body {"status": "active"}. Failed deliveries can be re-sent with POST /api/v1/webhooks/${args.webhookId}/deliveries/{deliveryId}/retry.`,
      ],
    },
  );
}

/** A URL may carry basic-auth credentials for the receiver; they stay out of email. */
function withoutCredentials(text: string): string {
  try {
    const url = new URL(text);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return text;
  }
}
