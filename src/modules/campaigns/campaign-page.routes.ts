import type { FastifyInstance } from 'fastify';
import { renderMessage, renderShell, setPageHeaders } from '../../web/page.ts';
import { fieldTypesForClient } from '../fields/field-types.ts';
import { frameAncestors } from '../../web/frame-ancestors.ts';
import { embedOriginsOf } from '../orgs/embed-origins.ts';
import { loadStaticAssets } from '../../web/static-assets.ts';
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
  // The same files and versioned URLs as the signing page (src/web/web.routes.ts serves them).
  const assets = loadStaticAssets();
  const assetBase = `/assets/app/${assets.version}/`;
  const pdfjsBase = `/assets/pdfjs/${assets.pdfjsVersion}/`;

  app.get<{ Params: { '*': string } }>(
    '/c/*',
    { schema: { hide: true } },
    async (request, reply) => {
      setPageHeaders(reply);
      const slug = request.params['*'];
      const found =
        slug.length <= 80 && SLUG.test(slug)
          ? await repo.findCampaignBySlug(deps.db, slug)
          : undefined;
      if (!found) {
        return reply.code(404).send(
          renderShell({
            title: 'Link not valid · Signet',
            assetBase,
            main: renderMessage(
              'This link is not valid',
              'It does not lead to a form. Check that you opened or copied the whole link.',
            ),
          }),
        );
      }
      // Framed only by the organization's own sites (embedOrigins); an unknown link by none.
      setPageHeaders(reply, frameAncestors(await embedOriginsOf(deps.db, found.org_id)));
      const campaign = await closeIfExpired(deps, found);
      const why = unavailability(campaign, deps.clock.now().getTime());
      if (why) {
        return reply.code(409).send(
          renderShell({
            title: `${campaign.name} · Signet`,
            assetBase,
            main: renderMessage(why.title, why.message),
          }),
        );
      }
      return reply.send(
        renderShell({
          title: `${campaign.welcome_title || campaign.name} · Signet`,
          assetBase,
          script: 'campaign.js',
          data: { pdfjs: pdfjsBase, 'field-types': FIELD_TYPES_JSON },
          main: `
    <div class="loading" aria-busy="true">
      <div class="spinner" aria-hidden="true"></div>
      <p>Loading the form…</p>
    </div>
    <noscript><p class="noscript">This form needs JavaScript. Please enable it and reload this page.</p></noscript>`,
        }),
      );
    },
  );
}
