import type { FastifyInstance } from 'fastify';
import { resolveLocale } from '../../i18n/locales.ts';
import { translator } from '../../i18n/messages.ts';
import { renderMessagePage, setPageHeaders } from '../../web/page.ts';
import { framePage, pageFiles, pageRequest, renderClientPage } from '../../web/client-page.ts';
import { embedModeOf, refusedOriginPage } from '../../web/embed-mode.ts';
import { fieldTypesForClient } from '../documents-core/field-types.ts';
import { embedOriginsOf } from '../orgs/embed-origins.ts';
import { closeIfExpired } from './campaign-closing.ts';
import { SLUG_PATTERN } from './campaign-rules.ts';
import * as repo from './campaigns.repository.ts';
import { unavailability } from './public.service.ts';

/** What the page's client needs of each field type (field-types.ts), as the JSON it reads. */
const FIELD_TYPES_JSON = JSON.stringify(fieldTypesForClient());

const SLUG = new RegExp(SLUG_PATTERN);

/**
 * The public page of a campaign, `PUBLIC_URL/c/{slug}`. An active campaign gets the page shell
 * whose client (src/web/client/campaign.js) talks to the public campaign API; an unknown link or a
 * campaign that takes nothing (paused, closed, expired, full) gets a readable page at once, without
 * JavaScript. Not part of the API reference (`hide: true`).
 */
export async function campaignPageRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  const files = pageFiles();

  app.get<{ Params: { '*': string } }>(
    '/c/*',
    { schema: { hide: true } },
    async (request, reply) => {
      setPageHeaders(reply);
      const slug = request.params['*'];
      const { lang, browser, url } = pageRequest(request);
      const found =
        slug.length <= 80 && SLUG.test(slug)
          ? await repo.findCampaignBySlug(deps.db, slug)
          : undefined;
      if (!found) {
        const locale = resolveLocale(lang, browser);
        const { t } = translator(locale);
        return reply.code(404).send(
          renderMessagePage({
            title: t('page.titleInvalidLink'),
            assetBase: files.assetBase,
            locale,
            url,
            embed: embedModeOf(request.query, []).embed,
            heading: t('campaign.invalidTitle'),
            text: t('campaign.invalidText'),
          }),
        );
      }
      // A visitor reads the campaign's locale, else their browser's, else the organization's.
      const org = await deps.db
        .selectFrom('organizations')
        .select('default_locale')
        .where('id', '=', found.org_id)
        .executeTakeFirst();
      const locale = resolveLocale(lang, found.locale, browser, org?.default_locale);
      const { t } = translator(locale);
      // Framed only by the organization's own sites (embedOrigins); an unknown link by none.
      const embedOrigins = await embedOriginsOf(deps.db, found.org_id);
      const mode = framePage(reply, request.query, embedOrigins);
      if (mode.refused) return reply.code(403).send(refusedOriginPage(locale, files.assetBase));
      const campaign = await closeIfExpired(deps, found);
      const why = unavailability(campaign, deps.clock.now().getTime());
      if (why) {
        return reply.code(409).send(
          renderMessagePage({
            title: t('page.titleDocument', { documentName: campaign.name }),
            assetBase: files.assetBase,
            locale,
            url,
            embed: mode.embed,
            heading: t(`campaign.${why.reason}Title`),
            text: t(`campaign.${why.reason}Text`),
          }),
        );
      }
      return reply.send(
        renderClientPage({
          title: t('page.titleDocument', { documentName: campaign.welcome_title || campaign.name }),
          locale,
          url,
          mode,
          files,
          script: 'campaign.js',
          fieldTypes: FIELD_TYPES_JSON,
          loading: t('campaign.loading'),
          noscript: t('page.noscriptForm'),
        }),
      );
    },
  );
}
