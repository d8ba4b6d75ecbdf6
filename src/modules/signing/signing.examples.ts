import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const signingExamples = {
  getSigningSession: {
    response: {
      data: {
        document: {
          id: EX.doc,
          name: 'Consulting agreement (Q1 2027)',
          message: 'Hi Ada, please review and sign the agreement for the Q1 engagement.',
          status: 'pending',
          signingType: 'sequential',
          pageCount: 2,
          expiresAt: AT.expires,
          senderName: 'Acme Consulting',
          brandColor: '#0F766E',
          logoUrl: null,
        },
        signer: {
          id: EX.sgn,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          role: 'signer',
          status: 'viewed',
          order: 0,
          group: 0,
        },
        isYourTurn: true,
        consent: {
          required: true,
          given: false,
          text: 'Consent to use electronic records and signatures\n\nYou have the right to receive this document on paper instead…',
          locale: 'en',
        },
        canReassign: false,
        otpRequired: true,
        otpMethod: 'sms',
        otpPhone: '+1 ••• ••• 0123',
        verification: { required: false, status: 'none' },
        fields: [
          {
            id: 'fld_01jdxck86ar0q4ftqc8da2dj2h',
            type: 'signature',
            label: '',
            page: 1,
            x: 10,
            y: 80,
            width: 30,
            height: 6,
            required: true,
            readOnly: false,
            placeholder: null,
            defaultValue: null,
            options: null,
          },
          {
            id: EX.fld,
            type: 'date',
            label: 'Date',
            page: 1,
            x: 60,
            y: 80,
            width: 20,
            height: 4,
            required: true,
            readOnly: false,
            placeholder: null,
            defaultValue: null,
            options: null,
          },
        ],
        recipients: [
          { name: 'Ada Lovelace', role: 'signer', status: 'viewed', order: 0, group: 0 },
        ],
      },
    },
  },
  getSigningFile: {},
  sendSigningOtp: {
    response: {
      data: {
        method: 'sms',
        sentTo: '+1 ••• ••• 0123',
        expiresAt: AT.expires,
        resendAfter: '2026-11-25T03:40:46.512Z',
      },
    },
  },
  completeSigning: {
    body: {
      values: { [EX.fld]: '2026-11-21' },
      signature: { kind: 'typed', value: 'Ada Lovelace' },
    },
    response: {
      data: {
        documentId: EX.doc,
        signerId: EX.sgn,
        status: 'completed',
        signedAt: AT.signed,
        documentStatus: 'pending',
        allSigned: true,
        redirectUrl: 'https://app.example.com/contracts/done',
      },
    },
  },
  declineSigning: {
    body: { reason: 'The fee in section 4 is not what we agreed.' },
    response: {
      data: {
        documentId: 'doc_01jdxckfffq2sg2baavnrw0t7y',
        signerId: 'sgn_01jdxckfffq2sg2baavnrw0t7z',
        status: 'declined',
        documentStatus: 'declined',
        redirectUrl: 'https://app.example.com/contracts/done',
      },
    },
  },
  reassignSigning: {
    body: {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      reason: 'Grace signs contracts for our team while I am on leave',
    },
    response: {
      data: {
        documentId: EX.doc,
        signerId: EX.sgn,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        status: 'sent',
      },
    },
  },
  submitSigningIdentity: {
    response: {
      data: {
        attachmentId: 'att_01jdxckg29zwvxwfhrymdvxdr2',
        verification: 'pending',
        documentStatus: 'action_required',
      },
    },
  },
  enterSigningAccessCode: {
    body: { accessCode: 'blue-harbor-42' },
    response: {
      data: {
        session: 'mf3k2a1c.Yq3v0cUq1l9bRk2xT8n4Wd6pZs7aJh5eGm0fC1iO2uE',
        expiresAt: AT.expires,
      },
    },
  },
  giveSigningConsent: {
    response: {
      data: {
        signerId: EX.sgn,
        locale: 'en',
        sha256: '6f1ed002ab5595859014ebf0951522d9a6d8f1f4f7e3a1c1a3d0b8e6f2c4a9b1',
        consentedAt: AT.signed,
      },
    },
  },
  resendSigningInvitation: {
    response: { data: { signerId: EX.sgn, sentTo: 'ada@example.com', expiresAt: AT.expires } },
  },
  createSigningLink: {
    body: { expiresIn: 3600 },
    response: { data: { url: `https://sign.example.com/sign/${EX.token}`, expiresAt: AT.expires } },
  },
  reviewSignerIdentity: {
    body: { decision: 'approve' },
    response: {
      data: {
        documentId: EX.doc,
        signerId: EX.sgn,
        verification: 'approved',
        documentStatus: 'pending',
      },
    },
  },
  uploadSigningFieldFile: {
    querystring: { filename: 'certificate-of-insurance.pdf' },
    response: { data: { attachmentId: EX.att } },
  },
} satisfies Record<string, OperationExample>;
