import fs from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { resolveLocale, type LocaleCode } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';
import { CONTENT_SECURITY_POLICY, renderMessagePage, setPageHeaders } from './page.ts';
import { loadStaticAssets } from './static-assets.ts';
import { embedScriptRoutes } from './embed-script.ts';
import { embedModeOf, refusedOriginPage } from './embed-mode.ts';
import { framePage, pageFiles, pageRequest, renderClientPage } from './client-page.ts';

/**
 * Browser pages: the signing page at `/sign/{token}` and the files it loads under `/assets/`.
 * The page is a static shell; its client module talks to the token-authenticated signing API
 * (`/api/v1/signing/{token}`), so every rule stays in one place, the API. None of these routes is
 * part of the API reference (`hide: true`).
 */

/**
 * What a signing token can look like. Anything else is answered at once with the "invalid link"
 * page, without running the client; well-formed but unknown tokens are recognised by the API.
 */
const TOKEN = /^[A-Za-z0-9._~-]{8,100}$/;

const YEAR = 365 * 24 * 3600;

interface WebRoutesOptions {
  /**
   * The organization's embed origins for a signing token (none for a token that opens nothing):
   * the signing page is framed only by them (frame-ancestors.ts); and the locale its signer reads.
   */
  pageOfLink(token: string): Promise<{ embedOrigins: string[]; locale: LocaleCode }>;
  /** What the client needs of each field type, as JSON (the field-type registry's `client` parts). */
  fieldTypes: string;
}

export async function webRoutes(app: FastifyInstance, options: WebRoutesOptions): Promise<void> {
  // Someone opening the server's address in a browser lands on the API reference; a program gets
  // where things are.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect('/docs', 302);
    return { name: 'Signet', docs: '/docs', openapi: '/openapi.json', health: '/healthz' };
  });

  const assets = loadStaticAssets();
  const files = pageFiles(assets);
  const embedScript = assets.files.get('embed.js');
  if (embedScript) embedScriptRoutes(app, embedScript);

  // File URLs carry a version, so a matching one never changes and may be cached for good. A request
  // for another version (a page from an instance running other code during a rolling deploy) still
  // gets the current file, but uncached.
  const setAssetHeaders = (reply: FastifyReply, type: string, current: boolean) =>
    reply.headers({
      'content-type': type,
      'cache-control': current ? `public, max-age=${YEAR}, immutable` : 'no-cache',
      'x-content-type-options': 'nosniff',
      // Workers take their policy from their own script's response.
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'cross-origin-resource-policy': 'same-origin',
    });

  // A wildcard rather than `:token`, so that even an absurdly long pasted link gets the readable
  // page instead of the router's JSON error for over-long parameters.
  app.get<{ Params: { '*': string } }>(
    '/sign/*',
    { schema: { hide: true } },
    async (request, reply) => {
      setPageHeaders(reply);
      const { lang, url } = pageRequest(request);
      if (!TOKEN.test(request.params['*'])) {
        const locale = resolveLocale(lang);
        const { t } = translator(locale);
        return reply.code(404).send(
          renderMessagePage({
            title: t('page.titleInvalidLink'),
            assetBase: files.assetBase,
            locale,
            url,
            embed: embedModeOf(request.query, []).embed,
            heading: t('page.invalidLinkTitle'),
            text: t('page.invalidLinkText'),
          }),
        );
      }
      const page = await options.pageOfLink(request.params['*']);
      const locale = resolveLocale(lang, page.locale);
      const { t } = translator(locale);
      const mode = framePage(reply, request.query, page.embedOrigins);
      if (mode.refused) return reply.code(403).send(refusedOriginPage(locale, files.assetBase));
      return reply.send(
        renderClientPage({
          title: t('page.titleSigning'),
          locale,
          url,
          mode,
          files,
          script: 'app.js',
          fieldTypes: options.fieldTypes,
          loading: t('page.loading'),
          noscript: t('page.noscriptSigning'),
        }),
      );
    },
  );

  app.get<{ Params: { version: string; '*': string } }>(
    '/assets/app/:version/*',
    { schema: { hide: true }, config: { rateLimit: false } },
    async (request, reply) => {
      const current = request.params.version === assets.version;
      const file = assets.files.get(request.params['*']);
      const font = file ? undefined : assets.fontFiles.get(request.params['*']);
      if (font) {
        setAssetHeaders(reply, font.type, current);
        return reply.send(fs.createReadStream(font.file));
      }
      if (!file) return reply.callNotFound();
      setAssetHeaders(reply, file.type, current);
      return reply.send(file.body);
    },
  );

  app.get<{ Params: { version: string; '*': string } }>(
    '/assets/pdfjs/:version/*',
    { schema: { hide: true }, config: { rateLimit: false } },
    async (request, reply) => {
      const file = assets.pdfjsFiles.get(request.params['*']);
      if (!file) return reply.callNotFound();
      setAssetHeaders(reply, file.type, request.params.version === assets.pdfjsVersion);
      return reply.send(fs.createReadStream(file.file));
    },
  );
}
