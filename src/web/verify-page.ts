import type { FastifyInstance } from 'fastify';
import { matchAcceptLanguage, resolveLocale } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';
import { escapeHtml, langOf, pageUrl, renderShell, setPageHeaders } from './page.ts';
import { loadStaticAssets } from './static-assets.ts';

/**
 * `GET /verify`: the public page where anyone drops a PDF and reads, in plain words, what its
 * signatures prove. The file goes to `POST /verify/check` (rate limited per IP) and is not kept.
 * In the language of `?lang=`, else the browser's, else English.
 */
export async function verifyPageRoutes(app: FastifyInstance): Promise<void> {
  const assetBase = `/assets/app/${loadStaticAssets().version}/`;
  app.get('/verify', { schema: { hide: true } }, async (request, reply) => {
    setPageHeaders(reply);
    const locale = resolveLocale(
      langOf(request.query),
      matchAcceptLanguage(request.headers['accept-language']),
    );
    const { t } = translator(locale);
    return reply.send(
      renderShell({
        title: t('verify.pageTitle'),
        assetBase,
        locale,
        url: pageUrl(request.url),
        script: 'verify.js',
        main: `
    <section class="verify" aria-labelledby="verify-title">
      <h1 id="verify-title">${escapeHtml(t('verify.title'))}</h1>
      <p class="verify-lead">${escapeHtml(t('verify.lead'))}</p>
      <label class="verify-drop" id="verify-drop">
        <input type="file" id="verify-file" accept="application/pdf,.pdf">
        <span class="verify-drop-title">${escapeHtml(t('verify.dropTitle'))}</span>
        <span class="verify-drop-hint">${escapeHtml(t('verify.dropHint'))}</span>
      </label>
      <div id="verify-result" class="verify-result" aria-live="polite"></div>
    </section>
    <noscript><p class="noscript">${escapeHtml(t('page.noscriptVerify'))}</p></noscript>`,
      }),
    );
  });
}
