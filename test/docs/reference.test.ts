import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/http/errors.ts';
import { commonErrorCodes } from '../../src/http/operation-docs.ts';
import { EVENT_TYPES } from '../../src/modules/events/event-types.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { exampleRequest, operationsOf, success, validator } from './openapi-doc.ts';

/*
 * The API reference teaches: every operation says what it does and who may call it, names its
 * responses, carries an example that its own schemas accept (with Ajv, as the server validates),
 * lists only error codes it can produce, and the `webhooks` section describes every event.
 */

const packageVersion = JSON.parse(
  fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.request('GET', '/openapi.json', { key: null })).body;
});
afterAll(async () => t.close());

/** The codes an error response's description names (`code`: …). */
const codesIn = (description: string) =>
  [...description.matchAll(/`([a-z_]+)`:/g)].map((m) => m[1]);

describe('the OpenAPI document', () => {
  it("names the package's version (the /docs page shows it)", () => {
    expect(doc.info.version).toBe(packageVersion);
  });

  it('is the same document on every request (deterministic)', async () => {
    const again = (await t.request('GET', '/openapi.json', { key: null })).raw.body;
    expect(again).toBe(JSON.stringify(doc));
  });

  it('describes every operation, names every response, and says who may call it', () => {
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.description?.length, `${where} description`).toBeGreaterThan(40);
      expect(op.description, `${where} who may call it`).toMatch(/\*\*(Scope|No API key):\*\*/);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect(response.description, `${where} ${status}`).toBeTruthy();
        expect(response.description, `${where} ${status}`).not.toMatch(/Default Response/);
      }
    }
  });

  it('has an example request and response for every operation, and each is valid against its own schema', () => {
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const ok = success(op);
      const json = ok.schema !== undefined;
      // A JSON success response has an example; a file download is bytes, described but not exemplified.
      if (json) {
        expect(ok.example, `${where} response example`).toBeDefined();
        expect(validator(doc, ok.schema)(ok.example), `${where} response example`).toBeNull();
      } else if (ok.status !== 204) {
        expect(
          Object.keys(op.responses[ok.status].content ?? {}).length,
          `${where} binary response`,
        ).toBeGreaterThan(0);
      }
      const jsonBody = op.requestBody?.content?.['application/json'];
      if (jsonBody) {
        expect(jsonBody.example, `${where} body example`).toBeDefined();
        expect(
          validator(doc, jsonBody.schema)(jsonBody.example),
          `${where} body example`,
        ).toBeNull();
      } else if (op.requestBody) {
        // Raw bytes: the description says what to send.
        expect(op.requestBody.description ?? op.description, `${where} body`).toBeTruthy();
      }
      for (const p of op.parameters ?? []) {
        if (p.in === 'path') expect(p.example, `${where} path parameter ${p.name}`).toBeDefined();
        if (p.example !== undefined)
          expect(validator(doc, p.schema, true)(p.example), `${where} ${p.name}`).toBeNull();
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content['application/json'];
        expect(media.example, `${where} ${status} example`).toBeDefined();
        expect(
          validator(doc, media.schema)(media.example),
          `${where} ${status} example`,
        ).toBeNull();
        if (path !== '/readyz')
          expect(codesIn(response.description), `${where} ${status} example code`).toContain(
            media.example.error.code,
          );
      }
      expect(exampleRequest(op)).toBeTruthy();
    }
  });

  it('lists only error codes an operation can produce: the common ones by its shape, each under its own status', () => {
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const listed = Object.entries<any>(op.responses)
        .filter(([s]) => Number(s) >= 400 && path !== '/readyz')
        .flatMap(([status, r]) =>
          codesIn(r.description).map((code) => ({ status: Number(status), code })),
        );
      for (const { status, code } of listed)
        expect(ERROR_STATUS[code as ErrorCode], `${where} ${code}`).toBe(status);
      const codes = new Set(listed.map((l) => l.code));
      const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
      const m = method.toUpperCase();
      // The rules of http/operation-docs.ts, checked from outside.
      if (!authenticated)
        expect(
          [...codes].filter((c) => c === 'insufficient_scope' || c === 'idempotency_conflict'),
          where,
        ).toEqual([]);
      if (m === 'GET') {
        // A GET has no body and no Idempotency-Key; only reads that verify a file sent straight to S3 can refuse its size or type.
        expect(
          [...codes].filter((c) => c.startsWith('idempotency_')),
          where,
        ).toEqual([]);
        if (!['getDocument', 'downloadDocument'].includes(op.operationId)) {
          expect(
            [...codes].filter((c) => c === 'payload_too_large' || c === 'unsupported_media_type'),
            where,
          ).toEqual([]);
        }
      }
      if (!(op.parameters ?? []).some((p: any) => p.name === 'cursor'))
        expect(codes.has('invalid_cursor'), `${where} invalid_cursor`).toBe(false);
      if (!path.startsWith('/api/v1/') && !path.startsWith('/uploads/'))
        expect(codes.size, where).toBe(0);
      if (path.startsWith('/api/v1/')) {
        const common = commonErrorCodes({
          method: m,
          url: path.replace(/\{(\w+)\}/g, ':$1'),
          schema: {
            params: (op.parameters ?? []).some((p: any) => p.in === 'path') || undefined,
            querystring: (op.parameters ?? []).some((p: any) => p.in === 'query')
              ? {
                  properties: Object.fromEntries(
                    (op.parameters ?? [])
                      .filter((p: any) => p.in === 'query')
                      .map((p: any) => [p.name, {}]),
                  ),
                }
              : undefined,
            body: op.requestBody,
          },
          config: authenticated
            ? {
                scope: 'documents.read',
                // An operation that stores nothing says it ignores the header (verification).
                ...(/`Idempotency-Key` is ignored/.test(op.description ?? '')
                  ? { idempotency: false }
                  : {}),
              }
            : {},
        });
        for (const c of common) expect(codes, `${where} lists the common code ${c}`).toContain(c);
      }
    }
  });

  it('describes the payload of every event type in `webhooks`, in the delivery envelope', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      expect(post.description.length, type).toBeGreaterThan(40);
      const media = post.requestBody.content['application/json'];
      expect(media.schema.properties.event.enum).toEqual([type]);
      expect(media.schema.required).toEqual(['id', 'event', 'api_version', 'created_at', 'data']);
      expect(media.example, `${type} example`).toBeDefined();
      expect(validator(doc, media.schema)(media.example), `${type} example`).toBeNull();
      expect(post.parameters.map((p: any) => p.name)).toEqual(
        expect.arrayContaining([
          'X-Service-Signature',
          'X-Service-Delivery-Id',
          'X-Service-Timestamp',
        ]),
      );
    }
    // Signer events carry the signer, campaign events the campaign, bulk sends their own resource.
    const data = (type: string) =>
      doc.webhooks[type].post.requestBody.content['application/json'].schema.properties.data;
    expect(data('signer.completed').properties.signer).toEqual({
      $ref: '#/components/schemas/Signer',
    });
    expect(data('campaign.submission.created').properties.campaign).toEqual({
      $ref: '#/components/schemas/Campaign',
    });
    expect(Object.keys(data('bulk_send.completed').properties)).toEqual(
      expect.arrayContaining(['total', 'sent', 'failed']),
    );
    expect(data('document.completed').properties._count.properties.attachments).toBeTruthy();
  });
});

describe('the listed error codes, spot-checked with real requests', () => {
  /** The codes the document lists for an operation. */
  const listed = (operationId: string) => {
    const o = operationsOf(doc).find((x) => x.op.operationId === operationId)!;
    return Object.entries<any>(o.op.responses).flatMap(([, r]) => codesIn(r.description));
  };
  const expectListed = (operationId: string, res: { status: number; body: any }, code: string) => {
    expect(res.body.error?.code, JSON.stringify(res.body)).toBe(code);
    expect(listed(operationId), `${operationId} lists ${code}`).toContain(code);
  };

  it('answers each with a code its operation lists', async () => {
    const draft = (await t.request('POST', '/api/v1/documents', { body: { name: 'Spot check' } }))
      .body.data.id;
    const big = JSON.stringify({ padding: 'x'.repeat(1_100_000) });
    expectListed(
      'sendDocument',
      await t.request('POST', `/api/v1/documents/${draft}/send`),
      'missing_signers',
    );
    expectListed(
      'sendDocument',
      await t.request('POST', `/api/v1/documents/${draft}/send`, { body: big }),
      'payload_too_large',
    );
    expectListed(
      'deleteDocument',
      await t.request('DELETE', `/api/v1/documents/${draft}`, {
        body: '<a/>',
        headers: { 'content-type': 'application/xml' },
      }),
      'unsupported_media_type',
    );
    expectListed(
      'listDocuments',
      await t.request('GET', '/api/v1/documents?cursor=bm90LWEtY3Vyc29y'),
      'invalid_cursor',
    );
    expectListed(
      'getDocument',
      await t.request('GET', '/api/v1/documents/doc_missing'),
      'not_found',
    );
    expectListed(
      'getDocument',
      await t.request('GET', `/api/v1/documents/${draft}`, { key: 'sk_unknown' }),
      'unauthorized',
    );
    expectListed(
      'getDocument',
      await t.request('GET', `/api/v1/documents/${draft}`, {
        key: await t.keyWith(['webhooks.read']),
      }),
      'insufficient_scope',
    );
    const once = { 'idempotency-key': 'spot-check-1' };
    expect(
      (await t.request('POST', '/api/v1/folders', { body: { name: 'A' }, headers: once })).status,
    ).toBe(201);
    expectListed(
      'createFolder',
      await t.request('POST', '/api/v1/folders', { body: { name: 'B' }, headers: once }),
      'idempotency_conflict',
    );
    expectListed(
      'getSigningSession',
      await t.request('GET', '/api/v1/signing/not-a-real-token-at-all', { key: null }),
      'forbidden',
    );
    expectListed(
      'getPublicCampaign',
      await t.request('GET', '/api/v1/public/campaigns/no-such-campaign-abc123', { key: null }),
      'not_found',
    );
    // A body-less request to an operation that needs one: a validation error, not a server error.
    expectListed(
      'createBulkSend',
      await t.request('POST', '/api/v1/bulk-sends'),
      'validation_error',
    );
    // A route without a key lists no key errors; one with a key lists no link errors.
    expect(listed('getPublicCampaign')).not.toContain('unauthorized');
    expect(listed('getDocument')).not.toContain('forbidden');
  });
});
