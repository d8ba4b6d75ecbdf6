import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import scalar from '@scalar/fastify-api-reference';

const FAVICON = fs.readFileSync(new URL('../web/client/favicon.svg', import.meta.url));

/*
 * The interactive reference at /docs: Scalar's API reference (readable on a phone), served from
 * this server with its script from the package, never from a CDN, and held to a Content-Security-
 * Policy. This origin also serves pages to anonymous visitors, so a key typed into the reference
 * stays in the page's memory only (`persistAuth: false`: not in local storage), nothing is loaded
 * from or reported to anywhere else (no web fonts, no telemetry; the policy would block them
 * anyway), and nobody may frame it.
 */

/** Signet's colours on Scalar's default theme. */
const THEME_CSS = `
.light-mode, .dark-mode { --scalar-color-accent: #4338ca; }
.light-mode { --scalar-background-1: #ffffff; --scalar-background-2: #f8fafc; }
`;

/**
 * The policy of the reference page. Scripts: only this server's file and the page's one inline
 * start-up script, allowed by its hash. Styles need 'unsafe-inline': the reference sets hundreds
 * of `style` attributes, which no nonce or hash can allow. Requests ("Test request") go to this
 * server and to PUBLIC_URL's origin.
 */
function docsPolicy(scriptHashes: string[], publicUrl: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${scriptHashes.map((h) => `'sha256-${h}'`).join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(publicUrl).origin}`,
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** SHA-256 (base64) of each inline script of an HTML page, as CSP hash sources take them. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) =>
    createHash('sha256').update(m[1]).digest('base64'),
  );
}

export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  // In a plugin of its own: the hooks below apply to the reference's routes only.
  await app.register(async (docs) => {
    let policy: string | undefined;
    docs.addHook('onSend', async (_request, reply, payload) => {
      reply.headers({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'cross-origin-opener-policy': 'same-origin',
      });
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        // The page is the same on every request: its inline script's hash is computed once.
        policy ??= docsPolicy(inlineScriptHashes(String(payload)), publicUrl);
        reply.header('content-security-policy', policy);
        reply.header('cache-control', 'no-store');
      } else {
        reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      }
      return payload;
    });
    docs.get('/docs/favicon.svg', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
    );
    await docs.register(scalar, {
      routePrefix: '/docs',
      configuration: {
        pageTitle: 'Signet API reference',
        // The document the server already serves (and keeps): no second copy parsed per request.
        url: '/openapi.json',
        favicon: '/docs/favicon.svg',
        customCss: THEME_CSS,
        withDefaultFonts: false,
        telemetry: false,
        persistAuth: false,
        showDeveloperTools: 'never',
        // These open or talk to the vendor's services: nothing on this page does.
        hideClientButton: true,
        agent: { disabled: true },
        mcp: { disabled: true },
        authentication: { preferredSecurityScheme: 'bearerAuth' },
      },
    });
  });
}
