import type { FastifyInstance } from 'fastify';
import { resolveLocale } from '../../i18n/locales.ts';
import { translator } from '../../i18n/messages.ts';
import { renderMessagePage, setPageHeaders } from '../../web/page.ts';
import { framePage, pageFiles, pageRequest, renderClientPage } from '../../web/client-page.ts';
import { refusedOriginPage } from '../../web/embed-mode.ts';
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
  const files = pageFiles();

  app.get<{ Params: { '*': string } }>(
    '/build/*',
    { schema: { hide: true } },
    async (request, reply) => {
      setPageHeaders(reply);
      const token = request.params['*'];
      const { lang, browser, url } = pageRequest(request);
      const page = TOKEN.test(token)
        ? await pageOfBuilderLink(deps, token)
        : { state: 'unknown' as const, embedOrigins: [], locale: undefined };
      const locale = resolveLocale(lang, page.locale, browser);
      const { t } = translator(locale);
      const mode = framePage(reply, request.query, page.embedOrigins);
      if (mode.refused) return reply.code(403).send(refusedOriginPage(locale, files.assetBase));
      if (page.state !== 'live') {
        const expired = page.state === 'expired';
        return reply.code(expired ? 410 : 404).send(
          renderMessagePage({
            title: t('builder.titleInvalid'),
            assetBase: files.assetBase,
            locale,
            url,
            embed: mode.embed,
            heading: t(expired ? 'builder.expiredTitle' : 'builder.invalidTitle'),
            text: t(expired ? 'builder.expiredText' : 'builder.invalidText'),
          }),
        );
      }
      return reply.send(
        renderClientPage({
          title: t('builder.title'),
          locale,
          url,
          mode,
          files,
          script: 'builder.js',
          fieldTypes: FIELD_TYPES_JSON,
          loading: t('page.loading'),
          noscript: t('builder.noscript'),
        }),
      );
    },
  );
}
