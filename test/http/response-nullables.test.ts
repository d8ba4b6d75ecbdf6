import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/*
 * A nullable value in a response is one schema with a type list (`type: ["string", "null"]`),
 * not `anyOf: [X, {type: "null"}]`: the serializer writes a type list with a typeof check, but
 * for an anyOf it compiles an Ajv validator on the first response that reaches it (tens to
 * hundreds of milliseconds of a blocked event loop, per route, after every start) and runs it on
 * every response. The values and the OpenAPI meaning are the same either way.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

function nullableUnions(schema: unknown, at: string, found: string[]): string[] {
  if (Array.isArray(schema))
    schema.forEach((s, i) => {
      nullableUnions(s, `${at}/${i}`, found);
    });
  else if (schema && typeof schema === 'object') {
    const branches = (schema as { anyOf?: { type?: unknown }[] }).anyOf;
    if (branches?.some((b) => b.type === 'null')) found.push(at);
    for (const [k, v] of Object.entries(schema)) nullableUnions(v, `${at}/${k}`, found);
  }
  return found;
}

describe('response schemas', () => {
  it('write nullable values as type lists, never as an anyOf with null', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).body;
    const found: string[] = [];
    for (const [path, item] of Object.entries<
      Record<string, { responses?: Record<string, unknown> }>
    >(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          if (status.startsWith('2'))
            nullableUnions(response, `${method.toUpperCase()} ${path} ${status}`, found);
        }
      }
    }
    nullableUnions(doc.components?.schemas, 'components', found);
    expect(found).toEqual([]);
  });

  it('still serialize null and non-null values of those fields', async () => {
    const created = await t.request('POST', '/api/v1/documents', {
      body: { name: 'Nullable', emailSubject: 'Please sign' },
    });
    expect(created.status).toBe(201);
    const detail = (
      await t.request('GET', `/api/v1/documents/${created.body.id ?? created.body.data?.id}`)
    ).body;
    const doc = detail.data ?? detail;
    expect(doc.emailSubject).toBe('Please sign');
    expect(doc.emailMessage).toBeNull();
    expect(doc.actionRequired).toBeNull();
    expect(doc.completedAt).toBeNull();
  });
});
