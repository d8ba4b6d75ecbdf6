import dns from 'node:dns';
import net from 'node:net';
import type { Config } from '../../config.ts';

/*
 * The blocked-address rule for webhook URLs (docs/webhooks.md), at registration (the host and
 * every address it resolves to) and at every connection the delivery worker opens, on the address
 * connected to, so a name that later resolves somewhere private (DNS rebinding) is refused.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = Uint8Array;

interface Cidr {
  bytes: Bytes;
  prefix: number;
  reason: string;
}

function parseV4(text: string): Bytes {
  return Uint8Array.from(text.split('.').map(Number));
}

function parseV6(text: string): Bytes {
  const halves = text.split('::');
  const words = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a, b, c, d] = parseV4(group);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const head = words(halves[0]);
  const tail = halves.length > 1 ? words(halves[1]) : [];
  const all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

/**
 * Parses a strict IPv4 dotted quad or an IPv6 address (brackets and zone id allowed) into bytes;
 * null for anything else. Loose IPv4 spellings (`0x7f.1`, `2130706433`) are not addresses here:
 * URLs reach this code through WHATWG parsing, which has already normalised them.
 */
export function parseIp(text: string): Bytes | null {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 4) return parseV4(bare);
  if (family === 6) return parseV6(bare);
  return null;
}

function cidr(text: string, reason = ''): Cidr | null {
  const [addr, bits] = text.split('/');
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const max = bytes.length * 8;
  const prefix = bits === undefined ? max : Number(bits);
  if (
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > max ||
    (bits !== undefined && !/^\d+$/.test(bits))
  )
    return null;
  return { bytes, prefix, reason };
}

function contains(range: Cidr, ip: Bytes): boolean {
  if (range.bytes.length !== ip.length) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (range.bytes[i] !== ip[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (range.bytes[whole] & mask) === (ip[whole] & mask);
}

const ranges = (list: [string, string][]) => list.map(([text, reason]) => cidr(text, reason)!);

/** IANA special-purpose IPv4 blocks that are not reachable on the public internet. */
const BLOCKED_V4 = ranges([
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata service)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
]);

const BLOCKED_V6 = ranges([
  // ::/96 holds the unspecified address, loopback ::1 and the deprecated IPv4-compatible form.
  ['::/96', 'an unspecified, loopback or IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:10::/28', 'an ORCHID address'],
  ['2001:20::/28', 'an ORCHID address'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);

/** IPv6 forms that carry an IPv4 address, judged by the IPv4 address they carry. */
const EMBEDS_V4: { range: Cidr; offset: number }[] = [
  { range: cidr('::ffff:0:0/96')!, offset: 12 }, // IPv4-mapped, e.g. ::ffff:10.0.0.1, ::ffff:7f00:1
  { range: cidr('::ffff:0:0:0/96')!, offset: 12 }, // IPv4-translated
  { range: cidr('64:ff9b::/96')!, offset: 12 }, // well-known NAT64 prefix
  { range: cidr('2002::/16')!, offset: 2 }, // 6to4
];

/** The IPv4 address an IPv6 address stands for, or the address itself. */
function effective(ip: Bytes): Bytes {
  if (ip.length === 16) {
    for (const { range, offset } of EMBEDS_V4)
      if (contains(range, ip)) return ip.slice(offset, offset + 4);
  }
  return ip;
}

/** Why an address may not receive webhooks (e.g. "a loopback address"), or null for a public address. */
export function blockedReason(address: string): string | null {
  const parsed = parseIp(address);
  if (!parsed) return 'not an IP address';
  const ip = effective(parsed);
  const hit = (ip.length === 4 ? BLOCKED_V4 : BLOCKED_V6).find((range) => contains(range, ip));
  return hit ? hit.reason : null;
}

/** `localhost` and its subdomains (RFC 6761) are loopback whatever a resolver says. */
const LOCAL_NAME = /(^|\.)localhost$/;

/** The host of a URL as WHATWG parsing normalised it: lower case, no brackets, no trailing dot. */
export function urlHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * `WEBHOOK_ALLOWED_HOSTS`: host names, IP addresses and CIDR blocks exempt from the rule
 * (on-premises receivers, tests). A listed name exempts whatever it resolves to; a listed
 * address or block exempts those addresses under any name.
 */
export class AddressPolicy {
  private readonly hosts = new Set<string>();
  private readonly blocks: Cidr[] = [];

  constructor(allowed: readonly string[]) {
    for (const entry of allowed) {
      const text = entry
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, '');
      if (!text) continue;
      const block = cidr(text);
      if (block) this.blocks.push(block);
      else this.hosts.add(text);
    }
  }

  hostAllowed(host: string): boolean {
    return this.hosts.has(host.toLowerCase().replace(/\.$/, ''));
  }

  /** Null when `address` may be connected to for `host`, otherwise why not. */
  refuse(host: string, address: string): string | null {
    if (this.hostAllowed(host)) return null;
    const parsed = parseIp(address);
    if (parsed) {
      // An IPv4-mapped address (::ffff:127.0.0.1) matches a listed IPv4 address or block.
      const ip = effective(parsed);
      if (this.blocks.some((block) => contains(block, ip) || contains(block, parsed))) return null;
    }
    return blockedReason(address);
  }

  /** Null when the name itself may be used (IP literals and resolved addresses are checked separately). */
  refuseName(host: string): string | null {
    if (this.hostAllowed(host)) return null;
    return LOCAL_NAME.test(host) ? 'a loopback host name' : null;
  }
}

const policies = new WeakMap<Config, AddressPolicy>();

/** The policy of a configuration, built once (the configuration is frozen). */
export function addressPolicy(config: Config): AddressPolicy {
  let policy = policies.get(config);
  if (!policy) {
    policy = new AddressPolicy(config.webhookAllowedHosts);
    policies.set(config, policy);
  }
  return policy;
}

/** Raised when a connection would reach a blocked address; the delivery counts as failed. */
export class BlockedAddressError extends Error {
  readonly code = 'SIGNET_BLOCKED_ADDRESS';
  constructor(reason: string) {
    super(`The host resolves to ${reason}, which webhooks may not reach`);
  }
}

const RESOLVE_TIMEOUT_MS = 5_000;

function resolveAll(host: string): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('DNS lookup timed out')), RESOLVE_TIMEOUT_MS);
    dns.lookup(host, { all: true, verbatim: true }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

/**
 * Checks a webhook URL at registration: scheme (HTTPS in production), then the host and every
 * address it resolves to. Returns the reason to refuse it, or null when it is acceptable.
 */
export async function checkWebhookUrl(
  text: string,
  policy: AddressPolicy,
  production: boolean,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (production && url.protocol !== 'https:') return 'must use https';
  const host = urlHost(url);
  if (!host) return 'must have a host';
  const byName = policy.refuseName(host);
  if (byName) return `must not point to ${byName}`;
  if (parseIp(host)) {
    const reason = policy.refuse(host, host);
    return reason ? `must not point to ${reason}` : null;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return 'host could not be resolved';
  }
  if (addresses.length === 0) return 'host could not be resolved';
  for (const { address } of addresses) {
    const reason = policy.refuse(host, address);
    if (reason) return `host resolves to ${reason}`;
  }
  return null;
}

/**
 * A `lookup` for http(s) connections that resolves the name and refuses it when any of its
 * addresses is blocked: the address the socket then connects to is one this check passed.
 * (IP-literal hosts skip lookup in Node; the worker checks those before connecting.)
 */
export function guardedLookup(policy: AddressPolicy): net.LookupFunction {
  // On an error the address argument is required by the type but never read: an empty list.
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const reason = policy.refuse(hostname, address);
        if (reason) return callback(new BlockedAddressError(reason), []);
      }
      if (addresses.length === 0)
        return callback(
          Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }),
          [],
        );
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
