import type { FastifyRequest } from 'fastify';
import type { RequestMeta } from '../modules/audit/audit.ts';

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
