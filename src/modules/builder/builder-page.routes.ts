import type { FastifyInstance } from 'fastify';
import { matchAcceptLanguage, resolveLocale } from '../../i18n/locales.ts';
import { translator } from '../../i18n/messages.ts';
import {
  escapeHtml,
  langOf,
  pageUrl,
  renderMessage,
  renderShell,
  setPageHeaders,
} from '../../web/page.ts';
import { frameAncestors } from '../../web/frame-ancestors.ts';
import { embedData, embedModeOf, refusedOriginPage } from '../../web/embed-mode.ts';
import { loadStaticAssets } from '../../web/static-assets.ts';
import { fieldTypesForBuilder } from '../documents-core/field-types.ts';
import { pageOfBuilderLink } from './builder-links.ts';

/** What a builder token can look like; anything else gets the "not valid" page at once. */
const TOKEN = /^[A-Za-z0-9_-]{8,100}$/;

/** What the builder needs of each field type (field-types.ts), as the JSON it reads. */
const FIELD_TYPES_JSON = JSON.stringify(fieldTypesForBuilder());

/**
 * The builder page, `PUBLIC_URL/build/{token}`: a shell whose client (src/web/client/builder.js)
 * talks to the builder API under the same token. An unknown link is answered 404, an expired one
 * 410, each with a readable page and no script. Framed only by the organization's embedOrigins.
 * Not part of the API reference (`hide: true`).
 */
export async function builderPageRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  // The same files and versioned URLs as the signing page (src/web/web.routes.ts serves them).
  const assets = loadStaticAssets();
  const assetBase = `/assets/app/${assets.version}/`;
  const pdfjsBase = `/assets/pdfjs/${assets.pdfjsVersion}/`;

  app.get<{ Params: { '*': string } }>(
    '/build/*',
    { schema: { hide: true } },
    async (request, reply) => {
      setPageHeaders(reply);
      const token = request.params['*'];
      const lang = langOf(request.query);
      const browser = matchAcceptLanguage(request.headers['accept-language']);
      const url = pageUrl(request.url);
      const page = TOKEN.test(token)
        ? await pageOfBuilderLink(deps, token)
        : { state: 'unknown' as const, embedOrigins: [], locale: undefined };
      const locale = resolveLocale(lang, page.locale, browser);
      const { t } = translator(locale);
      setPageHeaders(reply, frameAncestors(page.embedOrigins));
      const mode = embedModeOf(request.query, page.embedOrigins);
      if (mode.refused) return reply.code(403).send(refusedOriginPage(locale, assetBase));
      if (page.state !== 'live') {
        const expired = page.state === 'expired';
        return reply.code(expired ? 410 : 404).send(
          renderShell({
            title: t('builder.titleInvalid'),
            assetBase,
            locale,
            url,
            embed: mode.embed,
            main: renderMessage(
              t(expired ? 'builder.expiredTitle' : 'builder.invalidTitle'),
              t(expired ? 'builder.expiredText' : 'builder.invalidText'),
            ),
          }),
        );
      }
      return reply.send(
        renderShell({
          title: t('builder.title'),
          assetBase,
          locale,
          url,
          embed: mode.embed,
          script: 'builder.js',
          data: { pdfjs: pdfjsBase, 'field-types': FIELD_TYPES_JSON, ...embedData(mode) },
          main: `
    <div class="loading" aria-busy="true">
      <div class="spinner" aria-hidden="true"></div>
      <p>${escapeHtml(t('page.loading'))}</p>
    </div>
    <noscript><p class="noscript">${escapeHtml(t('builder.noscript'))}</p></noscript>`,
        }),
      );
    },
  );
}
