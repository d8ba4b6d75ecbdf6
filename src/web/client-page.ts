import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchAcceptLanguage, type LocaleCode } from '../i18n/locales.ts';
import { type EmbedMode, embedData, embedModeOf } from './embed-mode.ts';
import { frameAncestors } from './frame-ancestors.ts';
import { escapeHtml, langOf, pageUrl, renderShell, setPageHeaders } from './page.ts';
import { loadStaticAssets } from './static-assets.ts';

/**
 * The pages a client module builds in the browser: the signing page (web.routes.ts), the campaign
 * page (modules/campaigns/campaign-page.routes.ts) and the builder page
 * (modules/builder/builder-page.routes.ts). Each is the same shell (page.ts) with a spinner until
 * its script runs, a sentence for a browser without JavaScript, and what the script reads in
 * `<body data-…>`: where pdf.js is, the field types, and how the page is framed.
 */

/** Where a page's files are: Signet's client files and pdf.js, each under its version. */
interface PageFiles {
  assetBase: string;
  pdfjsBase: string;
}

/** The versioned URLs of the client files and of pdf.js, which web.routes.ts serves. */
export function pageFiles(assets = loadStaticAssets()): PageFiles {
  return {
    assetBase: `/assets/app/${assets.version}/`,
    pdfjsBase: `/assets/pdfjs/${assets.pdfjsVersion}/`,
  };
}

/** What a page reads of its request: `?lang=`, the browser's languages, and its own query (for the language picker). */
export function pageRequest(request: FastifyRequest) {
  return {
    lang: langOf(request.query),
    browser: matchAcceptLanguage(request.headers['accept-language']),
    url: pageUrl(request.url),
  };
}

/**
 * Lets the organization's own sites (`embedOrigins`) frame the page, and nobody else
 * (frame-ancestors.ts); answers the embed mode the page's query asks for (embed-mode.ts).
 */
export function framePage(
  reply: FastifyReply,
  query: unknown,
  embedOrigins: readonly string[],
): EmbedMode {
  setPageHeaders(reply, frameAncestors(embedOrigins));
  return embedModeOf(query, embedOrigins);
}

interface ClientPage {
  title: string;
  locale: LocaleCode;
  url: { query: Record<string, string> };
  mode: EmbedMode;
  files: PageFiles;
  /** The page's client module, in src/web/client/. */
  script: string;
  /** What the client needs of each field type, as JSON (the field-type registry's parts). */
  fieldTypes: string;
  /** The words under the spinner. */
  loading: string;
  /** What the page says in a browser without JavaScript. */
  noscript: string;
}

/** A page its client module builds: until the script runs, a spinner and `loading`. */
export function renderClientPage(page: ClientPage): string {
  return renderShell({
    title: page.title,
    assetBase: page.files.assetBase,
    locale: page.locale,
    url: page.url,
    embed: page.mode.embed,
    script: page.script,
    data: { pdfjs: page.files.pdfjsBase, 'field-types': page.fieldTypes, ...embedData(page.mode) },
    main: `
    <div class="loading" aria-busy="true">
      <div class="spinner" aria-hidden="true"></div>
      <p>${escapeHtml(page.loading)}</p>
    </div>
    <noscript><p class="noscript">${escapeHtml(page.noscript)}</p></noscript>`,
  });
}
