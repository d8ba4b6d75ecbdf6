import type { FastifyRequest } from 'fastify';

/** Who did something, as far as the request tells: written on every audit entry. */
export interface RequestMeta {
  ipAddress: string;
  userAgent: string;
  geoCity: string;
  geoCountry: string;
}

/** IP, user agent and GeoIP location (src/http/geo.ts; empty when unknown) of a request, for audit entries. */
export function requestMeta(request: FastifyRequest): RequestMeta {
  const ua = request.headers['user-agent'];
  const geo = request.server.geo?.locate(request) ?? { city: '', country: '' };
  return {
    ipAddress: request.ip ?? '',
    userAgent: typeof ua === 'string' ? ua.slice(0, 500) : '',
    geoCity: geo.city,
    geoCountry: geo.country,
  };
}
