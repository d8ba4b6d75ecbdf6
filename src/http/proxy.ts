import { BlockList, isIP } from 'node:net';

/**
 * `TRUST_PROXY` as a predicate on a peer address: true when the connection comes from one of the
 * named proxies (addresses or CIDRs; config.ts refuses anything else). Fastify takes it as its
 * `trustProxy`, so X-Forwarded-For is read only through those hops; geo.ts asks it before
 * reading a CDN's location headers.
 */
export type TrustedPeer = (address: string | undefined) => boolean;

export function trustedPeers(entries: readonly string[]): TrustedPeer {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    if (!address) return false;
    // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}
