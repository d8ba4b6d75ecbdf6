import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AssetFile } from './static-assets.ts';

/*
 * `GET /embed.js`, the script a site loads to embed Signet's pages (client/embed.js; README
 * "Embedding"): no key, loadable from any origin (CORS `*`, `Cross-Origin-Resource-Policy:
 * cross-origin`). `/embed.js` may be cached 5 minutes and revalidated by its ETag (the hash of its
 * bytes); `/embed.<hash>.js`, named in the `Link` header of `/embed.js`, never changes and may be
 * cached for good. Another hash (a page written for an earlier release) gets the current script,
 * uncached.
 */

const YEAR = 365 * 24 * 3600;
/** How long `/embed.js` may be used without asking again. */
const EMBED_SCRIPT_MAX_AGE = 300;

export function embedScriptRoutes(app: FastifyInstance, script: AssetFile): void {
  const hash = createHash('sha256').update(script.body).digest('hex').slice(0, 12);
  const etag = `"${hash}"`;
  const versioned = `/embed.${hash}.js`;

  const send = (request: FastifyRequest, reply: FastifyReply, cacheControl: string) => {
    reply.headers({
      'content-type': script.type,
      'cache-control': cacheControl,
      etag,
      link: `<${versioned}>; rel="canonical"`,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
    });
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(script.body);
  };

  app.get('/embed.js', { schema: { hide: true }, config: { rateLimit: false } }, (request, reply) =>
    send(request, reply, `public, max-age=${EMBED_SCRIPT_MAX_AGE}`),
  );
  app.get<{ Params: { hash: string } }>(
    '/embed.:hash(^[0-9a-f]{12}$).js',
    { schema: { hide: true }, config: { rateLimit: false } },
    (request, reply) =>
      send(
        request,
        reply,
        request.params.hash === hash ? `public, max-age=${YEAR}, immutable` : 'no-cache',
      ),
  );
}
