import { expect } from 'vitest';
import { api, type ChildServer } from '../helpers/child-server.ts';
import { field, samplePdf } from '../helpers/factories.ts';

/** The bootstrap key a first start prints (development mode). */
export const bootstrapKey = (server: ChildServer) => /^\s+(sk_\S+)$/m.exec(server.output())![1];

/** The upload URL's path on the child server (PUBLIC_URL is http://localhost:3000 in these tests). */
export const onServer = (server: ChildServer, url: string) =>
  url.replace('http://localhost:3000', server.url);

/** A draft with one signer and one signature field, and its upload ticket. */
export async function draftWithTicket(
  server: ChildServer,
  key: string,
  email = 'ada@example.test',
) {
  const created = await api(server, key, 'POST', '/api/v1/documents', {
    name: 'Fault test',
    signers: [{ name: 'Ada', email }],
    fields: [field({ assignedTo: 0, required: true })],
  });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  const ticket = (
    await api(server, key, 'POST', `/api/v1/documents/${id}/upload`, {
      contentType: 'application/pdf',
    })
  ).body.data;
  return { id, ticket: ticket as { uploadUrl: string; headers: Record<string, string> } };
}

export async function putFile(
  server: ChildServer,
  ticket: { uploadUrl: string; headers: Record<string, string> },
) {
  const res = await fetch(onServer(server, ticket.uploadUrl), {
    method: 'PUT',
    headers: ticket.headers,
    body: new Uint8Array(await samplePdf(1)),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Sends the document and signs it through an embedded link (no mail needed); returns once the signer completed. */
export async function sendAndSign(server: ChildServer, key: string, id: string) {
  expect((await api(server, key, 'POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
  const signerId = (await api(server, key, 'GET', `/api/v1/documents/${id}`)).body.data.signers[0]
    .id;
  const link = await api(server, key, 'POST', `/api/v1/documents/${id}/signers/${signerId}/link`);
  const token = link.body.data.url.split('/sign/')[1];
  const done = await api(server, null, 'POST', `/api/v1/signing/${token}/complete`, {
    values: {},
    signature: { kind: 'typed', value: 'Ada' },
  });
  expect(done.status).toBe(200);
}
