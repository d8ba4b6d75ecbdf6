import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EX } from '../../src/http/examples.ts';
import { EVENT_TYPES } from '../../src/modules/events/event-types.ts';
import { attachPdf, signingApp, type SigningTest } from '../signing/setup.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { exampleRequest, operationsOf, success, validator, type Operation } from './openapi-doc.ts';
import { STEPS, type Ctx } from './live-steps.ts';
import { runSchedulers } from '../../src/jobs/schedulers.ts';

/*
 * Every operation's example in the API reference, sent to a real server (a fresh database, real
 * SMTP to a sink, a real webhook receiver) in an order where what it refers to exists: the example
 * ids are replaced by the real ones, and the answer must have the documented success status and
 * match the documented schema. Every webhook delivery of the whole flow must match the `webhooks`
 * section of the document. With EXAMPLES_CAPTURE=<file>, the real answers are written there with
 * the example ids put back (how the response examples were made).
 */

let t: SigningTest;
let receiver: Receiver;
let certDir: string;
let doc: any;
let ctx: Ctx;
const HOOK_URL = 'https://hooks.example.com/signet';
const captured: Record<string, unknown> = {};
const history = new Map<string, string>(); // real id -> example id

beforeAll(async () => {
  certDir = await mkdtemp(path.join(os.tmpdir(), 'signet-examples-'));
  receiver = await startReceiver();
  t = await signingApp({
    SIGNING_CERT_P12: path.join(certDir, 'signing.p12'),
    SIGNING_CERT_PASSWORD: 'examples',
    SEALING_RETRY_SCHEDULE: '50ms',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '50ms,50ms',
  });
  t.app.deliveries.start();
  doc = (await t.request('GET', '/openapi.json', { key: null })).body;
  // Every event of the flow goes to the receiver, whatever the example webhook subscribes to.
  const all = await t.request('POST', '/api/v1/webhooks', {
    body: { url: `${receiver.url}/all`, events: [...EVENT_TYPES] },
  });
  if (all.status !== 201) throw new Error(JSON.stringify(all.body));
  ctx = {
    t,
    ids: new Map([[EX.org, t.orgId]]),
    hookUrl: `${receiver.url}/signet`,
    certFile: path.join(certDir, 'signing.p12'),
    last: {},
  };
}, 60_000);
afterAll(async () => {
  await t?.app.deliveries.stop();
  await t?.stop();
  await receiver?.close();
  if (certDir) await rm(certDir, { recursive: true, force: true });
  const file = process.env.EXAMPLES_CAPTURE;
  if (file) fs.writeFileSync(file, JSON.stringify(captured, null, 1));
});

/** `value` with every example id replaced by the real one it stands for now (in strings and object keys). */
function real(value: unknown): any {
  if (typeof value === 'string') {
    if (value === HOOK_URL) return ctx.hookUrl;
    let s = value;
    for (const [ex, id] of ctx.ids) s = s.replaceAll(ex, id);
    return s;
  }
  if (Array.isArray(value)) return value.map(real);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [real(k), real(v)]));
  return value;
}

/** The inverse, for capturing answers as examples: real ids back to `@key` of http/examples.ts. */
function asExample(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (history.has(value)) return `@${history.get(value)}`;
    if (key && /At$|_at$/.test(key) && /^\d{4}-\d\d-\d\dT/.test(value)) {
      const name = key.replace(/At$|_at$/, '');
      return `%${['sent', 'viewed', 'signed', 'completed', 'expires', 'updated'].includes(name) ? name : name === 'created' ? 'created' : 'updated'}`;
    }
    let s = value.replace('http://localhost:3000', 'https://sign.example.com');
    for (const [id, exKey] of history)
      if (id.length > 20 && s.includes(id)) s = s.replaceAll(id, `@{${exKey}}`);
    return s;
  }
  if (Array.isArray(value)) return value.map((v) => asExample(v));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        history.has(k) ? `@${history.get(k)}` : k,
        asExample(v, k),
      ]),
    );
  return value;
}

/** Gives a draft a signer, a field and a file, and sends it. */
async function sendDraft(id: string) {
  await t.request('POST', `/api/v1/documents/${id}/signers`, {
    body: { name: 'Ada Lovelace', email: 'ada@example.com' },
  });
  await t.request('POST', `/api/v1/documents/${id}/fields`, {
    body: { type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 6, assignedTo: 0 },
  });
  await attachPdf(t, id, 1);
  expect((await t.request('POST', `/api/v1/documents/${id}/send`)).status).toBe(200);
}

const byId = () => new Map(operationsOf(doc).map((o) => [o.op.operationId as string, o]));

async function send(o: Operation) {
  const ex = exampleRequest(o.op);
  let url = o.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(real(ex.params[name] ?? `{${name}}`)),
  );
  const query = new URLSearchParams(
    Object.entries(real(ex.query) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
  if ([...query].length > 0) url += `?${query}`;
  const authenticated = !(Array.isArray(o.op.security) && o.op.security.length === 0);
  return t.request(o.method.toUpperCase(), url, {
    key: authenticated ? t.key : null,
    body: ex.body === undefined ? undefined : real(ex.body),
  });
}

describe('the API reference examples, sent to a real server', () => {
  it('every operation has a step, and every step an operation', () => {
    const ops = [...byId().keys()].sort();
    expect([...new Set(STEPS.map((s) => s.op))].sort()).toEqual(ops);
  });

  it('each example request gets its documented status, and its answer matches the documented schema', async () => {
    const ops = byId();
    for (const step of STEPS) {
      const o = ops.get(step.op)!;
      await step.before?.(ctx);
      for (const [ex, id] of ctx.ids)
        history.set(id, Object.entries(EX).find(([, v]) => v === ex)![0]);
      const res = step.send ? await step.send(ctx) : await send(o);
      const ok = success(o.op);
      expect(res.status, `${step.op}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(ok.status);
      if (ok.schema) expect(validator(doc, ok.schema)(res.body), `${step.op} answer`).toBeNull();
      await step.after?.(ctx, res.body);
      for (const [ex, id] of ctx.ids)
        history.set(id, Object.entries(EX).find(([, v]) => v === ex)![0]);
      if (ok.schema && captured[step.op] === undefined) captured[step.op] = asExample(res.body);
    }
  }, 240_000);

  it('every webhook delivery of the flow matches its event in the `webhooks` section', async () => {
    // Two events the examples do not cause: a bulk send that runs to its end, and a document past its expiresAt.
    const bulk = await t.request('POST', '/api/v1/bulk-sends', {
      body: {
        templateId: ctx.last.template,
        rows: [
          { signers: [{ role: 'Volunteer', name: 'Ada Lovelace', email: 'ada@example.com' }] },
        ],
      },
    });
    expect(bulk.status).toBe(202);
    const expiring = await t.request('POST', '/api/v1/documents', {
      body: {
        name: 'Expiring',
        expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
      },
    });
    await sendDraft(expiring.body.data.id);
    await t.settle();
    t.clock.advance(120_000);
    await runSchedulers(t.app.deps);
    await t.settle();
    const until = Date.now() + 20_000;
    while (
      Date.now() < until &&
      !['document.completed', 'bulk_send.completed', 'document.expired'].every((e) =>
        receiver.received.some((r) => r.headers['x-service-event'] === e),
      )
    )
      await new Promise((r) => setTimeout(r, 100));
    const seen = new Set<string>();
    for (const got of receiver.received) {
      const body = JSON.parse(got.body);
      const hook = doc.webhooks[body.event];
      expect(hook, `webhooks.${body.event}`).toBeTruthy();
      const schema = hook.post.requestBody.content['application/json'].schema;
      expect(validator(doc, schema)(body), `${body.event} delivery`).toBeNull();
      if (!seen.has(body.event)) captured[`event:${body.event}`] = asExample(body);
      seen.add(body.event);
    }
    // The flow above causes every event type; each was delivered and checked.
    for (const event of EVENT_TYPES) {
      expect(seen, event).toContain(event);
    }
  }, 60_000);
});
