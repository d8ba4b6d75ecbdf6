import type { TestApp } from '../helpers/build-test-app.ts';
import { field } from '../helpers/factories.ts';
import { createTemplate, giveTemplateFile, readyTemplate } from '../templates/setup.ts';

/** Creates a campaign (on a new ready template unless `templateId` is given) and returns the create response's data. */
export async function createCampaign(
  t: TestApp,
  body: Record<string, unknown> = {},
  key?: string,
): Promise<any> {
  const templateId = (body.templateId as string | undefined) ?? (await readyTemplate(t, { key }));
  const res = await t.request('POST', '/api/v1/campaigns', {
    body: { name: 'Sign-up', ...body, templateId },
    key,
  });
  if (res.status !== 201)
    throw new Error(`createCampaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Events of a type recorded for the test's organization (the transactional outbox), oldest first. */
export async function eventsOf(t: TestApp, type: string): Promise<any[]> {
  const rows = await t.database.handle.db
    .selectFrom('events')
    .selectAll()
    .where('type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...JSON.parse(r.data), orgId: r.org_id }));
}

export const FULL_KEYS = [
  'brandColor',
  'collectPhone',
  'createdAt',
  'expiresAt',
  'id',
  'locale',
  'maxSubmissions',
  'name',
  'redirectUrl',
  'requireKyc',
  'requireOtp',
  'slug',
  'status',
  'submissionCount',
  'templateId',
  'updatedAt',
  'url',
  'welcomeMessage',
  'welcomeTitle',
];
export const LIST_KEYS = [
  'brandColor',
  'collectPhone',
  'createdAt',
  'expiresAt',
  'id',
  'maxSubmissions',
  'name',
  'requireOtp',
  'slug',
  'status',
  'submissionCount',
  'templateId',
  'updatedAt',
  'url',
];
export const CREATE_KEYS = [
  'brandColor',
  'collectPhone',
  'createdAt',
  'expiresAt',
  'id',
  'maxSubmissions',
  'name',
  'redirectUrl',
  'requireOtp',
  'slug',
  'status',
  'templateId',
  'url',
];

/** A campaign on a template with a text field, a tick box and a signature. */
export async function volunteerCampaign(t: TestApp, extra: Record<string, unknown> = {}) {
  const tpl = await createTemplate(t, {
    name: 'Volunteer agreement',
    roles: [{ name: 'Volunteer' }],
    fields: [
      field({ type: 'text', label: 'City', x: 10, y: 20, width: 40, height: 3 }),
      field({ type: 'checkbox', label: 'I agree', x: 10, y: 30, width: 3, height: 2 }),
      field({ type: 'signature', label: 'Signature', x: 10, y: 60, width: 35, height: 7 }),
    ],
  });
  await giveTemplateFile(t, tpl);
  return createCampaign(t, {
    templateId: tpl,
    name: 'Volunteers 2026',
    welcomeTitle: 'Join our volunteers',
    welcomeMessage: 'Fill in your details and sign the agreement.',
    ...extra,
  });
}
