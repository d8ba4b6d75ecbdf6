import type { FastifyInstance } from 'fastify';

/**
 * An operation that takes no body accepts a request without one whatever its `Content-Type`
 * (most HTTP clients send `Content-Type: application/json` on every call, as curl does with a
 * shared header list): the header of an empty request is dropped before Fastify picks a body
 * parser, which would otherwise refuse an empty JSON body or an unknown media type. The same
 * holds for an empty `application/json` request to an operation whose body is optional.
 * A body that is there, or announced as chunked, is parsed as always. PUT is left alone: in this
 * API it carries raw file bytes, whose declared type the upload checks even when they are empty.
 */
export function registerEmptyBody(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.headers;
    if (
      request.method !== 'PUT' &&
      headers['content-type'] !== undefined &&
      headers['transfer-encoding'] === undefined
    ) {
      const length = headers['content-length'];
      if (length === undefined || /^0+$/.test(length)) {
        const hasBodySchema = request.routeOptions.schema?.body !== undefined;
        if (!hasBodySchema || /^application\/json\s*(;|$)/i.test(headers['content-type']))
          delete headers['content-type'];
      }
    }
    done();
  });
}
