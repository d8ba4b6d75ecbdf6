import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { AddressPolicy, blockedReason } from '../../src/modules/webhooks/ssrf.ts';
import { startReceiver, type Receiver } from './support.ts';

// No WEBHOOK_ALLOWED_HOSTS: the rule applies in full.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const register = (app: TestApp, url: string) =>
  app.request('POST', '/api/v1/webhooks', { body: { url, events: ['document.completed'] } });

async function expectRefused(app: TestApp, url: string) {
  const res = await register(app, url);
  expect(res.status, `${url} → ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details[0].path).toBe('body.url');
}

async function expectAccepted(app: TestApp, url: string) {
  const res = await register(app, url);
  expect(res.status, `${url} → ${JSON.stringify(res.body)}`).toBe(201);
  await app.request('DELETE', `/api/v1/webhooks/${res.body.data.id}`);
}

describe('registration refuses every blocked address form', () => {
  const blocked = [
    // private ranges
    'http://10.0.0.1/',
    'http://10.255.255.255/x',
    'https://10.0.0.1:8443/hook',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.0.1/',
    'http://192.168.255.255/',
    // loopback
    'http://127.0.0.1/',
    'http://127.0.0.1:3000/hook',
    'http://127.1.2.3/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://localhost:8080/x',
    'http://api.localhost/',
    // link-local and the metadata service
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.0.1/',
    'http://[fe80::1]/',
    'http://[febf::1]/',
    // this network
    'http://0.0.0.0/',
    'http://0/',
    'http://0.1.2.3/',
    'http://[::]/',
    // unique local IPv6
    'http://[fc00::1]/',
    'http://[fd12:3456:789a::1]/',
    // IPv4-mapped / -compatible / NAT64 / 6to4 forms of private and loopback addresses
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:a9fe:a9fe::]/',
    // carrier-grade NAT
    'http://100.64.0.1/',
    'http://100.127.255.254/',
    // multicast, broadcast, reserved, documentation, benchmarking
    'http://224.0.0.1/',
    'http://239.255.255.250/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://[ff02::1]/',
    'http://192.0.2.10/',
    'http://198.18.0.1/',
    'http://203.0.113.9/',
    'http://[2001:db8::1]/',
    // loose IPv4 spellings of 127.0.0.1 and 10.0.0.1 (decimal, hex, octal, short)
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0x0a.0.0.1/',
    'http://167772161/',
    // userinfo does not hide the host
    'http://user:pw@127.0.0.1/',
    'http://example.com@127.0.0.1/',
    'http://93.184.215.14@10.0.0.1/',
  ];
  it.each(blocked)('%s', async (url) => expectRefused(t, url));

  it('accepts public addresses next to the blocked ranges', async () => {
    for (const url of [
      'http://93.184.215.14/hook',
      'https://172.32.0.1/',
      'http://172.15.255.255/',
      'http://100.128.0.1/',
      'http://11.0.0.1/',
      'http://[2606:4700:4700::1111]/',
      'http://[::ffff:8.8.8.8]/',
      'http://[2002:808:808::]/',
    ]) {
      await expectAccepted(t, url);
    }
  });

  it('refuses a host name that resolves to a loopback address', async (ctx) => {
    // /etc/hosts usually maps the machine's own name to 127.0.x.x; no DNS server is needed.
    const name = os.hostname();
    const addresses = await dns.lookup(name, { all: true }).catch(() => []);
    if (
      addresses.length === 0 ||
      !addresses.every((a) => a.address.startsWith('127.') || a.address === '::1')
    ) {
      ctx.skip(`${name} does not resolve to loopback here`);
    }
    await expectRefused(t, `http://${name}:8080/hook`);
    expect((await register(t, `http://${name}/`)).body.error.message).toMatch(
      /resolves to a loopback address/,
    );
  });

  it('refuses a host name that does not resolve', async () => {
    const res = await register(t, 'http://no-such-host.invalid/hook');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'body.url', message: 'host could not be resolved' },
    ]);
  });

  it('checks a new url on PATCH too', async () => {
    const res = await register(t, 'http://93.184.215.14/hook');
    const id = res.body.data.id;
    for (const url of [
      'http://127.0.0.1/',
      'http://[::ffff:7f00:1]/',
      'http://0x7f.1/',
      'http://localhost/',
    ]) {
      const patch = await t.request('PATCH', `/api/v1/webhooks/${id}`, { body: { url } });
      expect(patch.status, url).toBe(400);
      expect(patch.body.error.details[0].path).toBe('body.url');
    }
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  it('exempts listed host names, addresses and CIDR blocks, and nothing else', async () => {
    const onPrem = await buildTestApp({
      env: { WEBHOOK_ALLOWED_HOSTS: 'localhost, 10.1.0.0/16,192.168.7.7,[::1]' },
      database: t.database,
    });
    try {
      for (const url of [
        'http://localhost:8080/',
        'http://10.1.2.3/',
        'http://192.168.7.7/',
        'http://[::1]/',
        'http://[::ffff:10.1.2.3]/',
      ]) {
        await expectAccepted(onPrem, url);
      }
      for (const url of [
        'http://10.2.0.1/',
        'http://192.168.7.8/',
        'http://127.0.0.1/',
        'http://169.254.169.254/',
      ]) {
        await expectRefused(onPrem, url);
      }
    } finally {
      await onPrem.close();
    }
  });
});

describe('the rule at delivery time', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver.close());

  it('blocks the connection when the address is no longer allowed, by IP literal or by resolved name', async () => {
    const allowed = await buildTestApp({
      env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost', WEBHOOK_RETRY_SCHEDULE: '1h' },
      database: t.database,
    });
    try {
      const ids: string[] = [];
      for (const host of ['127.0.0.1', 'localhost']) {
        const res = await allowed.request('POST', '/api/v1/webhooks', {
          body: { url: `http://${host}:${receiver.port}/hook`, events: ['document.completed'] },
        });
        expect(res.status).toBe(201);
        ids.push(res.body.data.id);
        expect(
          (await allowed.request('POST', `/api/v1/webhooks/${res.body.data.id}/test`)).status,
        ).toBe(202);
      }
      // The same database, served by a process whose configuration does not allow loopback.
      expect(await t.app.deliveries.drain()).toBe(2);
      expect(receiver.received).toHaveLength(0);
      for (const id of ids) {
        const [delivery] = (await allowed.request('GET', `/api/v1/webhooks/${id}/deliveries`)).body
          .data;
        expect(delivery).toMatchObject({
          status: 'pending',
          attemptCount: 1,
          lastStatusCode: null,
        });
        expect(delivery.attempts[0].error).toMatch(/^The host resolves to a loopback address/);
        expect(
          (await allowed.request('POST', `/api/v1/webhooks/${id}/deliveries/${delivery.id}/retry`))
            .status,
        ).toBe(202);
      }
      // Where loopback is allowed, the same deliveries go through.
      expect(await allowed.app.deliveries.drain()).toBe(2);
      expect(receiver.received).toHaveLength(2);
      await allowed.app.deliveries.stop();
    } finally {
      await allowed.close();
    }
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'an unspecified, loopback or IPv4-compatible address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:a00:1', 'a private address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['169.254.169.254', 'a link-local address (cloud metadata service)'],
    ['100.64.0.0', 'a carrier-grade NAT address'],
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ])('%s is %s', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it('a listed name exempts what it resolves to; a listed block exempts mapped forms', () => {
    const policy = new AddressPolicy(['hooks.internal', '10.0.0.0/8', 'not/a/cidr']);
    expect(policy.refuse('hooks.internal', '192.168.1.1')).toBeNull();
    expect(policy.refuse('other.internal', '10.9.9.9')).toBeNull();
    expect(policy.refuse('other.internal', '::ffff:10.9.9.9')).toBeNull();
    expect(policy.refuse('other.internal', '192.168.1.1')).toBe('a private address');
  });
});
