import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const organizationExamples = {
  getOrganization: {
    response: {
      data: {
        id: EX.org,
        name: 'Acme',
        adminEmail: 'admin@acme.test',
        brandColor: null,
        logoUrl: null,
        replyTo: null,
        embedOrigins: [],
        defaultLocale: 'en',
        timeZone: 'UTC',
        requireConsent: false,
        consentText: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
      },
    },
  },
  updateOrganization: {
    body: {
      name: 'Acme Consulting',
      brandColor: '#0F766E',
      replyTo: 'contracts@acme.example',
      embedOrigins: ['https://app.acme.example'],
      defaultLocale: 'de',
      timeZone: 'Europe/Berlin',
    },
    response: {
      data: {
        id: EX.org,
        name: 'Acme Consulting',
        adminEmail: 'admin@acme.test',
        brandColor: '#0F766E',
        logoUrl: null,
        replyTo: 'contracts@acme.example',
        embedOrigins: ['https://app.acme.example'],
        defaultLocale: 'de',
        timeZone: 'Europe/Berlin',
        requireConsent: false,
        consentText: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
      },
    },
  },
} satisfies Record<string, OperationExample>;
