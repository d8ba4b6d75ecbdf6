import sharp from 'sharp';
import { EX } from '../../src/http/examples.ts';
import { samplePdf } from '../helpers/factories.ts';
import { writeP12 } from '../helpers/p12.ts';
import { address, latestToken, sentDocument, type SigningTest } from '../signing/setup.ts';

/**
 * The order in which the examples of the API reference are sent to a real server, and what each
 * needs first. `ids` maps an example id (http/examples.ts) to the real one it stands for at that
 * point; a step points it at what its example should act on.
 */
export interface Ctx {
  t: SigningTest;
  ids: Map<string, string>;
  /** The webhook receiver's URL, standing for the example's https://hooks.example.com/signet. */
  hookUrl: string;
  certFile: string;
  last: Record<string, any>;
}

export interface Step {
  op: string;
  before?: (c: Ctx) => Promise<void>;
  after?: (c: Ctx, body: any) => Promise<void> | void;
  /** Sends the request itself (raw bytes); returns status and JSON body. */
  send?: (c: Ctx) => Promise<{ status: number; body: any }>;
}

const at = (c: Ctx, ex: string, real: string) => void c.ids.set(ex, real);
const tokenOf = (url: string) => url.split('/').at(-1)!;

async function draftWithFile(c: Ctx, body: Record<string, unknown>) {
  const doc = await sentDocument(c.t, {
    signers: [{ name: 'Ada Lovelace', email: address('ada') }],
    ...body,
  });
  return doc;
}

const raw = async (
  c: Ctx,
  method: 'PUT' | 'POST',
  url: string,
  bytes: Buffer,
  contentType: string,
  key?: string,
) => {
  const headers: Record<string, string> = {
    'content-type': contentType,
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  const res = await c.t.app.inject({ method, url, payload: bytes, headers });
  return {
    status: res.statusCode,
    body: res.headers['content-type']?.toString().includes('json') ? res.json() : res.body,
  };
};

export const STEPS: Step[] = [
  { op: 'health' },
  { op: 'getOrganization' },
  { op: 'listLocales' },
  { op: 'updateOrganization' },
  // A webhook subscribed to every event first, so every event of the flow is delivered to the receiver.
  { op: 'createWebhook', after: (c, b) => at(c, EX.whk, b.data.id) },
  { op: 'listWebhooks' },
  { op: 'getWebhook' },
  { op: 'updateWebhook' },
  { op: 'testWebhook', after: (c, b) => at(c, EX.dlv, b.data.id) },
  { op: 'listWebhookDeliveries' },
  { op: 'retryWebhookDelivery' },
  { op: 'rotateWebhookSecret' },
  { op: 'createFolder', after: (c, b) => at(c, EX.fol, b.data.id) },
  { op: 'listFolders' },
  { op: 'getFolder' },
  { op: 'updateFolder' },
  {
    op: 'createTemplate',
    after: (c, b) => {
      at(c, EX.tpl, b.data.id);
      c.last.template = b.data.id;
      at(c, EX.rol, b.data.roles[0].id);
      at(c, EX.tfld, b.data.fields[0].id);
    },
  },
  { op: 'listTemplates' },
  { op: 'getTemplate' },
  { op: 'updateTemplate' },
  {
    op: 'requestTemplateUpload',
    after: (c, b) => {
      c.last.templateUpload = b.data.uploadUrl;
    },
  },
  {
    op: 'uploadDocumentFile',
    // The template's PDF through its upload URL (the document's goes the same way below).
    send: async (c) =>
      raw(
        c,
        'PUT',
        `/uploads/${tokenOf(c.last.templateUpload)}`,
        await samplePdf(1, 'Volunteer agreement'),
        'application/pdf',
      ),
  },
  { op: 'addTemplateRole', after: (c, b) => at(c, EX.rol, b.data.id) },
  { op: 'listTemplateRoles' },
  { op: 'updateTemplateRole' },
  { op: 'removeTemplateRole' },
  { op: 'addTemplateField', after: (c, b) => at(c, EX.tfld, b.data.id) },
  { op: 'listTemplateFields' },
  { op: 'createTemplateBuilderLink' },
  { op: 'updateTemplateField' },
  {
    op: 'removeTemplateField',
    after: async (c) =>
      at(
        c,
        EX.tfld,
        (await c.t.request('GET', `/api/v1/templates/${c.ids.get(EX.tpl)}`)).body.data.fields[0].id,
      ),
  },
  {
    op: 'createDocument',
    after: async (c, b) => {
      at(c, EX.doc, b.data.id);
      const detail = (await c.t.request('GET', `/api/v1/documents/${b.data.id}`)).body.data;
      at(c, EX.sgn, detail.signers[0].id);
      at(c, EX.fld, detail.fields.find((f: { type: string }) => f.type === 'date').id);
      c.last.dateField = c.ids.get(EX.fld);
    },
  },
  { op: 'listDocuments' },
  { op: 'getDocument' },
  { op: 'updateDocument' },
  {
    op: 'requestDocumentUpload',
    after: (c, b) => {
      c.last.documentUpload = b.data.uploadUrl;
    },
  },
  {
    op: 'uploadDocumentFile',
    send: async (c) =>
      raw(
        c,
        'PUT',
        `/uploads/${tokenOf(c.last.documentUpload)}`,
        await samplePdf(2, 'Consulting agreement'),
        'application/pdf',
      ),
  },
  { op: 'addSigner', after: (c, b) => at(c, EX.sgn, b.data.id) },
  { op: 'listSigners' },
  { op: 'updateSigner' },
  {
    op: 'removeSigner',
    after: async (c) =>
      at(
        c,
        EX.sgn,
        (await c.t.request('GET', `/api/v1/documents/${c.ids.get(EX.doc)}`)).body.data.signers[0]
          .id,
      ),
  },
  { op: 'addField', after: (c, b) => at(c, EX.fld, b.data.id) },
  { op: 'listFields' },
  { op: 'updateField' },
  { op: 'removeField', after: (c) => at(c, EX.fld, c.last.dateField) },
  {
    op: 'createDocumentBuilderLink',
    after: (c, b) => at(c, EX.builderToken, tokenOf(b.data.url)),
  },
  { op: 'getBuilder' },
  { op: 'getBuilderFile' },
  { op: 'saveBuilderFields' },
  { op: 'sendDocument', after: (c) => c.t.settle() },
  { op: 'createSigningLink', after: (c, b) => at(c, EX.token, tokenOf(b.data.url)) },
  { op: 'getSigningSession' },
  { op: 'getSigningFile' },
  { op: 'listDocumentAudit' },
  { op: 'downloadDocument' },
  // No signing certificate yet: the signed PDF cannot be made, so the document needs action (sealing_failed).
  { op: 'completeSigning', after: (c) => c.t.settle() },
  {
    op: 'resealDocument',
    before: async (c) => {
      const detail = (await c.t.request('GET', `/api/v1/documents/${c.ids.get(EX.doc)}`)).body.data;
      if (detail.actionRequired?.reason !== 'sealing_failed')
        throw new Error(`expected sealing_failed, got ${JSON.stringify(detail.actionRequired)}`);
      await writeP12(c.certFile, 'examples');
    },
    after: async (c) => {
      await c.t.settle();
      c.last.signed = c.ids.get(EX.doc);
    },
  },
  {
    op: 'sendSigningOtp',
    before: async (c) => {
      const email = address('otp');
      const doc = await draftWithFile(c, {
        signers: [{ name: 'Ada Lovelace', email }],
        body: { otpMethod: 'email' },
      });
      at(c, EX.doc, doc.id);
      at(c, EX.token, latestToken(c.t, email));
    },
  },
  { op: 'cancelDocument' },
  {
    op: 'declineSigning',
    before: async (c) => {
      const email = address('decline');
      await draftWithFile(c, { signers: [{ name: 'Ada Lovelace', email }] });
      at(c, EX.token, latestToken(c.t, email));
    },
  },
  {
    op: 'submitSigningIdentity',
    before: async (c) => {
      const email = address('kyc');
      const doc = await draftWithFile(c, {
        signers: [{ name: 'Ada Lovelace', email }],
        body: { requireKyc: true },
      });
      at(c, EX.doc, doc.id);
      at(c, EX.sgn, doc.signers[0].id);
      at(c, EX.token, latestToken(c.t, email));
    },
    send: async (c) => {
      const png = await sharp({
        create: { width: 640, height: 400, channels: 3, background: '#d8d2c4' },
      })
        .png()
        .toBuffer();
      return raw(c, 'POST', `/api/v1/signing/${c.ids.get(EX.token)}/identity`, png, 'image/png');
    },
  },
  { op: 'reviewSignerIdentity' },
  {
    op: 'enterSigningAccessCode',
    before: async (c) => {
      const email = address('coded');
      const doc = await draftWithFile(c, {
        signers: [{ name: 'Ada Lovelace', email, accessCode: 'blue-harbor-42' }],
      });
      at(c, EX.doc, doc.id);
      at(c, EX.sgn, doc.signers[0].id);
      at(c, EX.token, latestToken(c.t, email));
    },
  },
  { op: 'resendSigningInvitation' },
  {
    op: 'giveSigningConsent',
    before: async (c) => {
      await c.t.request('PATCH', '/api/v1/organization', { body: { requireConsent: true } });
      const email = address('consent');
      const doc = await draftWithFile(c, { signers: [{ name: 'Ada Lovelace', email }] });
      at(c, EX.doc, doc.id);
      at(c, EX.token, latestToken(c.t, email));
    },
    after: async (c) => {
      await c.t.request('PATCH', '/api/v1/organization', { body: { requireConsent: false } });
    },
  },
  {
    op: 'reassignSigning',
    before: async (c) => {
      const email = address('handover');
      const doc = await draftWithFile(c, {
        signers: [{ name: 'Ada Lovelace', email }],
        body: { allowReassign: true },
      });
      at(c, EX.doc, doc.id);
      at(c, EX.sgn, doc.signers[0].id);
      at(c, EX.token, latestToken(c.t, email));
    },
  },
  {
    op: 'uploadSigningFieldFile',
    before: async (c) => {
      const email = address('upload');
      const doc = await draftWithFile(c, {
        signers: [{ name: 'Ada Lovelace', email }],
        fields: [
          { type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 },
          {
            type: 'file',
            label: 'Certificate of insurance',
            page: 1,
            x: 10,
            y: 60,
            width: 30,
            height: 6,
            assignedTo: 0,
          },
        ],
      });
      at(c, EX.doc, doc.id);
      at(c, EX.fld, doc.fields.find((f) => f.type === 'file')!.id);
      at(c, EX.token, latestToken(c.t, email));
    },
    send: async (c) => {
      const url = `/api/v1/signing/${c.ids.get(EX.token)}/fields/${c.ids.get(EX.fld)}/file?filename=certificate-of-insurance.pdf`;
      return raw(c, 'PUT', url, await samplePdf(1, 'Certificate of insurance'), 'application/pdf');
    },
    after: (c, b) => at(c, EX.att, b.data.attachmentId),
  },
  { op: 'downloadDocumentAttachment' },
  {
    op: 'deleteDocument',
    before: async (c) =>
      at(
        c,
        EX.doc,
        (await c.t.request('POST', '/api/v1/documents', { body: { name: 'Draft to throw away' } }))
          .body.data.id,
      ),
  },
  {
    op: 'sendPublicCampaignOtp',
    before: async (c) => {
      const created = await c.t.request('POST', '/api/v1/campaigns', {
        body: { templateId: c.ids.get(EX.tpl), name: 'Coded volunteers', requireOtp: true },
      });
      at(c, EX.slug, created.body.data.slug);
    },
  },
  {
    op: 'createCampaign',
    after: (c, b) => {
      at(c, EX.cmp, b.data.id);
      at(c, EX.slug, b.data.slug);
    },
  },
  { op: 'listCampaigns' },
  { op: 'getCampaign' },
  { op: 'updateCampaign' },
  { op: 'getPublicCampaign' },
  { op: 'getPublicCampaignFile' },
  // The only submission it takes (maxSubmissions 1): the campaign closes.
  { op: 'submitToCampaign', after: (c) => c.t.settle() },
  { op: 'listCampaignSubmissions' },
  {
    op: 'uploadPublicCampaignFieldFile',
    before: async (c) => {
      const tpl = (
        await c.t.request('POST', '/api/v1/templates', {
          body: {
            name: 'Contractor onboarding',
            roles: [{ name: 'Contractor' }],
            fields: [
              { type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 },
              {
                type: 'file',
                label: 'Certificate of insurance',
                page: 1,
                x: 10,
                y: 60,
                width: 30,
                height: 6,
                assignedTo: 0,
              },
            ],
          },
        })
      ).body.data;
      const ticket = (
        await c.t.request('POST', `/api/v1/templates/${tpl.id}/upload`, {
          body: { contentType: 'application/pdf' },
        })
      ).body.data;
      await raw(
        c,
        'PUT',
        `/uploads/${tokenOf(ticket.uploadUrl)}`,
        await samplePdf(1, 'Contractor onboarding'),
        'application/pdf',
      );
      const campaign = (
        await c.t.request('POST', '/api/v1/campaigns', {
          body: { templateId: tpl.id, name: 'Contractors', collectPhone: false },
        })
      ).body.data;
      at(c, EX.slug, campaign.slug);
      at(c, EX.tfld, tpl.fields.find((f: { type: string }) => f.type === 'file').id);
    },
    send: async (c) => {
      const url = `/api/v1/public/campaigns/${c.ids.get(EX.slug)}/fields/${c.ids.get(EX.tfld)}/file?filename=certificate-of-insurance.pdf`;
      return raw(c, 'PUT', url, await samplePdf(1, 'Certificate of insurance'), 'application/pdf');
    },
  },
  { op: 'deleteCampaign' },
  { op: 'createBulkSend', after: (c, b) => at(c, EX.bsd, b.data.id) },
  { op: 'listBulkSends' },
  { op: 'getBulkSend' },
  { op: 'cancelBulkSend' },
  {
    op: 'createOrganizationExport',
    after: async (c, b) => {
      at(c, EX.exp, b.data.id);
      await c.t.settle(); // the job writes the ZIP (and emits organization.export.completed)
    },
  },
  {
    op: 'getOrganizationExport',
    after: (c, b) => {
      c.last.exportUrl = b.data.downloadUrl;
    },
  },
  {
    op: 'downloadOrganizationExport',
    send: async (c) => {
      const url = new URL(c.last.exportUrl);
      const res = await c.t.app.inject({ method: 'GET', url: url.pathname + url.search });
      return { status: res.statusCode, body: res.rawPayload };
    },
  },
  {
    op: 'deleteTemplate',
    before: async (c) =>
      at(
        c,
        EX.tpl,
        (await c.t.request('POST', '/api/v1/templates', { body: { name: 'Old agreement' } })).body
          .data.id,
      ),
  },
  {
    op: 'deleteFolder',
    before: async (c) =>
      at(
        c,
        EX.fol,
        (await c.t.request('POST', '/api/v1/folders', { body: { name: 'Empty folder' } })).body.data
          .id,
      ),
  },
  { op: 'listEvents' },
  {
    op: 'verifyPdf',
    // The signed PDF of the document completed above.
    send: async (c) => {
      const signed = await c.t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${c.last.signed}/download`,
        headers: { authorization: `Bearer ${c.t.key}` },
      });
      if (signed.statusCode !== 200) throw new Error(`download: ${signed.statusCode}`);
      return raw(c, 'POST', '/api/v1/verify', signed.rawPayload, 'application/pdf', c.t.key);
    },
  },
  { op: 'ready' },
  { op: 'deleteWebhook' },
];
