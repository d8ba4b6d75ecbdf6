import type { FastifyInstance } from 'fastify';
import { renderShell, setPageHeaders } from './page.ts';
import { loadStaticAssets } from './static-assets.ts';

/**
 * `GET /verify`: the public page where anyone drops a PDF and reads, in plain words, what its
 * signatures prove. The file goes to `POST /verify/check` (rate limited per IP) and is not kept.
 */
export async function verifyPageRoutes(app: FastifyInstance): Promise<void> {
  const assetBase = `/assets/app/${loadStaticAssets().version}/`;
  app.get('/verify', { schema: { hide: true } }, async (_request, reply) => {
    setPageHeaders(reply);
    return reply.send(
      renderShell({
        title: 'Verify a signed PDF · Signet',
        assetBase,
        script: 'verify.js',
        main: `
    <section class="verify" aria-labelledby="verify-title">
      <h1 id="verify-title">Verify a signed PDF</h1>
      <p class="verify-lead">Choose or drop a PDF to check its digital signatures. The file is checked and then discarded: nothing is stored.</p>
      <label class="verify-drop" id="verify-drop">
        <input type="file" id="verify-file" accept="application/pdf,.pdf">
        <span class="verify-drop-title">Drop a PDF here</span>
        <span class="verify-drop-hint">or tap to choose a file (up to 50 MB)</span>
      </label>
      <div id="verify-result" class="verify-result" aria-live="polite"></div>
    </section>
    <noscript><p class="noscript">Checking a file needs JavaScript. Please enable it and reload this page.</p></noscript>`,
      }),
    );
  });
}
