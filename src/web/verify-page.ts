import type { FastifyInstance } from 'fastify';
import { resolveLocale } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';
import { escapeHtml, renderShell, setPageHeaders } from './page.ts';
import { pageFiles, pageRequest } from './client-page.ts';

/**
 * `GET /verify`: the public page where anyone drops a PDF and reads, in plain words, what its
 * signatures prove. The file goes to `POST /verify/check` (rate limited per IP) and is not kept.
 * In the language of `?lang=`, else the browser's, else English.
 */
export async function verifyPageRoutes(app: FastifyInstance): Promise<void> {
  const { assetBase } = pageFiles();
  app.get('/verify', { schema: { hide: true } }, async (request, reply) => {
    setPageHeaders(reply);
    const { lang, browser, url } = pageRequest(request);
    const locale = resolveLocale(lang, browser);
    const { t } = translator(locale);
    return reply.send(
      renderShell({
        title: t('verify.pageTitle'),
        assetBase,
        locale,
        url,
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
