import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const signerExamples = {
  addSigner: {
    body: {
      name: 'Charles Babbage',
      email: 'charles@example.com',
      role: 'approver',
      phone: '+1 415 555 0123',
      otpMethod: 'sms',
    },
    response: {
      data: {
        id: EX.sgn,
        name: 'Charles Babbage',
        email: 'charles@example.com',
        phone: '+14155550123',
        otpMethod: 'sms',
        role: 'approver',
        status: 'pending',
        order: 1,
        group: 1,
        signedAt: null,
        locale: null,
        delivery: 'embedded',
        createdAt: AT.created,
      },
    },
  },
  listSigners: {
    response: {
      data: [
        {
          id: EX.sgn,
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          phone: null,
          otpMethod: null,
          role: 'signer',
          status: 'pending',
          order: 0,
          group: 0,
          signedAt: null,
          locale: null,
          delivery: 'email',
          createdAt: AT.created,
        },
        {
          id: EX.sgn,
          name: 'Charles Babbage',
          email: 'charles@example.com',
          phone: null,
          otpMethod: null,
          role: 'approver',
          status: 'pending',
          order: 1,
          group: 1,
          signedAt: null,
          locale: null,
          delivery: 'email',
          createdAt: AT.created,
        },
      ],
      meta: { count: 2, hasMore: false, nextCursor: null },
    },
  },
  updateSigner: {
    body: { email: 'charles.babbage@example.com' },
    response: {
      data: {
        id: EX.sgn,
        name: 'Charles Babbage',
        email: 'charles.babbage@example.com',
        phone: null,
        otpMethod: null,
        role: 'approver',
        status: 'pending',
        order: 1,
        group: 1,
        signedAt: null,
        locale: null,
        delivery: 'email',
        createdAt: AT.created,
      },
    },
  },
  removeSigner: {},
} satisfies Record<string, OperationExample>;
