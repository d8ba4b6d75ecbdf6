import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Reply, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';

// Inputs the property tests (test/property) found to crash or to escape the error format; kept
// here as plain examples so a regression names its cause.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

function expectValidationError(res: Reply, path?: string): void {
  expect(res.status).toBe(400);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(res.body.error.code).toBe('validation_error');
  expect(typeof res.body.error.message).toBe('string');
  if (path) expect(res.body.error.details).toContainEqual(expect.objectContaining({ path }));
}

describe('URLs the router cannot decode', () => {
  it.each(['/api/v1/documents/%ZZ', '/api/v1/documents/%/audit', '/api/v1/documents/%E0%A4%A'])(
    '%s is a 400 in the API error format, with X-Request-Id',
    async (url) => {
      const res = await t.request('GET', url);
      expectValidationError(res, 'url');
      expect(Object.keys(res.body)).toEqual(['error']);
    },
  );

  it('a path segment longer than the router allows is a 400 in the API error format', async () => {
    const res = await t.request('GET', `/api/v1/documents/${'x'.repeat(5000)}`);
    expectValidationError(res);
  });
});

describe('U+0000 in input (PostgreSQL cannot store it)', () => {
  it('is refused in a body, a query string and a path, on both databases', async () => {
    expectValidationError(
      await t.request('POST', '/api/v1/documents', { body: { name: 'a\u0000b' } }),
      'body.name',
    );
    expectValidationError(
      await t.request('POST', '/api/v1/documents', {
        body: {
          name: 'ok',
          signers: [{ name: 'S', email: 's@example.test', phone: '555\u00000100' }],
        },
      }),
      'body.signers.0.phone',
    );
    expectValidationError(
      await t.request('GET', '/api/v1/documents?search=%00'),
      'querystring.search',
    );
    expectValidationError(await t.request('GET', '/api/v1/documents/%00'), 'params.id');
    const id = await createDocument(t, { name: 'Untouched' });
    expectValidationError(
      await t.request('PATCH', `/api/v1/documents/${id}`, { body: { message: '\u0000' } }),
      'body.message',
    );
    expect((await t.request('GET', `/api/v1/documents/${id}`)).body.data.message).toBe('');
  });

  it('other unusual text is stored as sent', async () => {
    const name = "O'Brien \u202e 100% _x_ \\ 𝕏";
    const res = await t.request('POST', '/api/v1/documents', { body: { name } });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe(name);
  });
});

describe('date-times a JavaScript Date cannot hold', () => {
  it('a leap second (23:59:60) is a 400, not a 500', async () => {
    expectValidationError(
      await t.request('POST', '/api/v1/documents', {
        body: { name: 'Leap', expiresAt: '2099-12-31T23:59:60Z' },
      }),
      'body.expiresAt',
    );
    const id = await createDocument(t);
    expectValidationError(
      await t.request('PATCH', `/api/v1/documents/${id}`, {
        body: { expiresAt: '2099-12-31T23:59:60Z' },
      }),
      'body.expiresAt',
    );
  });

  it('other RFC 3339 spellings are accepted and normalized', async () => {
    const res = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Offset', expiresAt: '2099-06-30t12:00:00+02:00' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.expiresAt).toBe('2099-06-30T10:00:00.000Z');
  });
});
