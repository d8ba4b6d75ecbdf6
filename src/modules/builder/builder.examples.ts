import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

const link = (token: string) => ({
  data: { url: `https://sign.example.com/build/${token}`, expiresAt: '2026-11-21T10:30:00.000Z' },
});

const dateField = {
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
  assignedTo: 0,
  placeholder: null,
  defaultValue: null,
  options: null,
};
const signatureField = {
  type: 'signature',
  label: 'Signature',
  page: 1,
  x: 10,
  y: 78,
  width: 30,
  height: 6,
  required: true,
  readOnly: false,
  assignedTo: 0,
  placeholder: null,
  defaultValue: null,
  options: null,
};

/**
 * Realistic calls of these operations, shown in the API reference and sent to a real server by
 * test/docs/examples-live.test.ts.
 */
export const builderExamples = {
  createDocumentBuilderLink: { response: link(EX.builderToken) },
  createTemplateBuilderLink: { response: link('Xq4Nw8Rz1Lk6Ty3Pb9Vm2Hc5Jd7Fs0Ga4Ue8Ko1Mi6') },
  getBuilder: {
    response: {
      data: {
        kind: 'document',
        id: EX.doc,
        name: 'Consulting agreement',
        pageCount: 1,
        parties: [{ order: 0, name: 'Ada Lovelace' }],
        fields: [dateField],
        expiresAt: AT.sent,
      },
    },
  },
  getBuilderFile: {},
  saveBuilderFields: {
    body: { fields: [dateField, signatureField] },
    response: { data: [dateField, { id: EX.fld2, ...signatureField }] },
  },
} satisfies Record<string, OperationExample>;
