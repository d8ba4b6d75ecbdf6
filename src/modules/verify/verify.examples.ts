import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const verifyExamples = {
  verifyPdf: {
    response: {
      data: {
        signatures: [
          {
            valid: true,
            coversWholeDocument: true,
            level: 'B-B',
            signedAt: AT.signed,
            certificate: {
              subject: 'CN=Test signer',
              issuer: 'CN=Test signer',
              serialNumber: '074e663ff34b8d9722',
              notBefore: '2026-11-25T03:38:45.000Z',
              notAfter: '2027-11-25T03:39:45.000Z',
              selfSigned: true,
            },
            timestamp: null,
            revocationEmbedded: false,
          },
        ],
        modifiedAfterLastSignature: false,
        document: {
          id: EX.doc,
          name: 'Consulting agreement (Q1 2027)',
          status: 'completed',
          completedAt: AT.completed,
        },
      },
    },
  },
} satisfies Record<string, OperationExample>;
