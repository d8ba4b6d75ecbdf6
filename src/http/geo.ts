import type { FastifyInstance, FastifyRequest } from 'fastify';
import maxmind, { type CityResponse, type Reader } from 'maxmind';
import type { Config } from '../config.ts';
import { trustedPeers, type TrustedPeer } from './proxy.ts';

/*
 * City and country of a request, for audit entries and the signing certificate. Two sources:
 *
 * 1. Headers set by a trusted proxy or CDN, read only when the connection comes from a
 *    `TRUST_PROXY` address or CIDR (otherwise any client could claim a location): country from `CF-IPCountry` (Cloudflare),
 *    `CloudFront-Viewer-Country` (CloudFront) or `X-Geo-Country`; city from `CF-IPCity`
 *    (Cloudflare's visitor location headers), `CloudFront-Viewer-City` or `X-Geo-City`.
 * 2. `GEOIP_DB`: a MaxMind-format database (GeoLite2/GeoIP2 City or Country, or any compatible
 *    .mmdb) looked up with the client IP (which `TRUST_PROXY` takes from X-Forwarded-For).
 *
 * Headers win, the database fills what they leave empty; unknown values are empty strings.
 */

interface GeoLocation {
  city: string;
  country: string;
}

interface GeoLocator {
  locate(request: FastifyRequest): GeoLocation;
}

declare module 'fastify' {
  interface FastifyInstance {
    geo: GeoLocator;
  }
}

const COUNTRY_HEADERS = ['cf-ipcountry', 'cloudfront-viewer-country', 'x-geo-country'];
const CITY_HEADERS = ['cf-ipcity', 'cloudfront-viewer-city', 'x-geo-city'];

/** ISO 3166-1 alpha-2; `XX` (unknown) and Cloudflare's `T1` (Tor) are not countries. */
export function normalizeCountry(value: string | undefined): string {
  const v = (value ?? '').trim().toUpperCase();
  return /^[A-Z]{2}$/.test(v) && v !== 'XX' ? v : '';
}

/** Printable text of at most 100 characters; percent-encoded values (CloudFront) are decoded. */
export function normalizeCity(value: string | undefined): string {
  let v = (value ?? '').trim();
  if (/%[0-9A-Fa-f]{2}/.test(v)) {
    try {
      v = decodeURIComponent(v);
    } catch {
      /* keep as sent */
    }
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return v.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 100);
}

function header(request: FastifyRequest, names: string[]): string | undefined {
  for (const name of names) {
    const value = request.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) return first;
  }
  return undefined;
}

function createGeoLocator(options: {
  trustedPeer: TrustedPeer;
  reader: Reader<CityResponse> | null;
}): GeoLocator {
  return {
    locate(request) {
      // Location headers count only when this connection comes from a named proxy: anyone else could write them.
      const fromProxy = options.trustedPeer(request.socket?.remoteAddress);
      let country = fromProxy ? normalizeCountry(header(request, COUNTRY_HEADERS)) : '';
      let city = fromProxy ? normalizeCity(header(request, CITY_HEADERS)) : '';
      if ((!country || !city) && options.reader && request.ip) {
        try {
          const found = options.reader.get(request.ip);
          country ||= normalizeCountry(
            found?.country?.iso_code ?? found?.registered_country?.iso_code,
          );
          city ||= normalizeCity(found?.city?.names?.en);
        } catch {
          // An address the database cannot hold (IPv6 in an IPv4-only file): unknown.
        }
      }
      return { city, country };
    },
  };
}

/** Opens `GEOIP_DB` (if set) and decorates the app with `geo`; a missing or corrupt file fails startup. */
export async function registerGeo(app: FastifyInstance, config: Config): Promise<void> {
  const reader = config.geoipDb ? await maxmind.open<CityResponse>(config.geoipDb) : null;
  app.decorate('geo', createGeoLocator({ trustedPeer: trustedPeers(config.trustProxy), reader }));
}
