import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const fileExamples = {
  requestDocumentUpload: {
    body: {
      filename: 'agreement.pdf',
      contentType: 'application/pdf',
      fileSize: 48213,
      textTags: true,
    },
    response: {
      data: {
        uploadUrl: `https://sign.example.com/uploads/${EX.uploadToken}`,
        fileKey: `orgs/${EX.org}/documents/${EX.doc}/CCgZlg68Pq1KFXRC/agreement.pdf`,
        expiresIn: 3600,
        method: 'PUT',
        headers: { 'Content-Type': 'application/pdf' },
        textTags: true,
      },
    },
  },
  downloadDocument: {},
  uploadDocumentFile: {
    response: {
      data: {
        id: EX.tpl,
        name: 'Volunteer agreement',
        description: 'Signed by every volunteer before their first shift (2027 edition)',
        signingType: 'sequential',
        allowReassign: false,
        fileSize: 870,
        pageCount: 1,
        documentHash: 'a03606325c37baf617e62984a9028b1d16eae5de05361f2d4f0ced07b0f0314a',
        createdAt: AT.created,
        updatedAt: AT.updated,
        _count: { roles: 1, fields: 2 },
        warnings: [
          {
            code: 'invalid_tag',
            message: '{{signature:}}: expected the signer number (1, 2, …) after ":"',
            page: 1,
          },
        ],
        roles: [
          {
            id: EX.rol,
            name: 'Volunteer',
            order: 0,
            group: 0,
            signerName: null,
            signerEmail: null,
            locale: null,
            createdAt: AT.created,
            updatedAt: AT.updated,
          },
        ],
        fields: [
          {
            id: EX.tfld,
            type: 'name',
            label: 'Full name',
            page: 1,
            x: 10,
            y: 70,
            width: 40,
            height: 4,
            required: true,
            readOnly: false,
            assignedTo: 0,
            placeholder: null,
            defaultValue: null,
            options: null,
          },
          {
            id: 'fld_01jdxck5t4fm8798m91gjgxsnm',
            type: 'signature',
            label: '',
            page: 1,
            x: 10,
            y: 80,
            width: 30,
            height: 6,
            required: true,
            readOnly: false,
            assignedTo: 0,
            placeholder: null,
            defaultValue: null,
            options: null,
          },
        ],
      },
    },
  },
  downloadDocumentAttachment: {},
} satisfies Record<string, OperationExample>;
