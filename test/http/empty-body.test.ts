import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import { readyDocument } from '../signers/setup.ts';

// Over a real socket, as curl and fetch send it: the header list carries a Content-Type, the
// request has no body (Content-Length: 0, or no length at all).
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => t.close());

const post = (path: string, headers: Record<string, string>, body?: string) =>
  fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, ...headers },
    body,
  });

describe('operations without a body', () => {
  it('send and cancel accept an empty body sent as application/json', async () => {
    const id = await readyDocument(t);
    const sent = await post(`/api/v1/documents/${id}/send`, { 'content-type': 'application/json' });
    expect(sent.status).toBe(200);
    expect((await sent.json()).data.status).toBe('pending');
    const cancelled = await post(
      `/api/v1/documents/${id}/cancel`,
      { 'content-type': 'application/json', 'content-length': '0' },
      '',
    );
    expect(cancelled.status).toBe(200);
    expect((await cancelled.json()).data.status).toBe('cancelled');
  });

  it('accept an empty body whatever its Content-Type', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
      'application/octet-stream',
    ]) {
      const id = await readyDocument(t);
      const sent = await post(`/api/v1/documents/${id}/send`, { 'content-type': type }, '');
      expect(sent.status, type).toBe(200);
    }
  });

  it('an operation whose body is optional takes an empty JSON request as "all defaults"', async () => {
    const id = await createDocument(t);
    const res = await post(`/api/v1/documents/${id}/upload`, {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.uploadUrl).toMatch(/\/uploads\//);
  });

  it('an operation that needs a body still says so', async () => {
    const res = await post('/api/v1/documents', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_error');
  });

  it('a body that is there is still parsed: invalid JSON is refused', async () => {
    const id = await readyDocument(t);
    const res = await post(
      `/api/v1/documents/${id}/send`,
      { 'content-type': 'application/json' },
      '{nope',
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe('Request body is not valid JSON');
  });
});
