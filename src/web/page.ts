import type { FastifyReply } from 'fastify';
import { catalogOf, translator } from '../i18n/messages.ts';
import { directionOf, LOCALES, type LocaleCode } from '../i18n/locales.ts';
import { NO_FRAMING } from './frame-ancestors.ts';

/**
 * The Content-Security-Policy of a page or client file, given who may frame it (frame-ancestors.ts).
 * Everything comes from Signet itself; no inline script or style is allowed. `wasm-unsafe-eval`
 * lets pdf.js compile its WebAssembly decoders (JBIG2 and JPEG 2000 scans, ICC colours): it permits
 * WebAssembly only, not `eval`. `data:` images are the drawn-signature previews.
 */
function contentSecurityPolicy(frameAncestors: string): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The policy of pages nobody may frame and of the client files. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy(NO_FRAMING);

/**
 * Headers of a page that carries a secret in its URL: never cached, never indexed, never sent on
 * as a Referer; framed only as `frameAncestors` allows (frame-ancestors.ts; nobody by default).
 */
export function setPageHeaders(reply: FastifyReply, frameAncestors: string = NO_FRAMING): void {
  reply.headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': contentSecurityPolicy(frameAncestors),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-robots-tag': 'noindex, nofollow',
    'permissions-policy': 'camera=(self), microphone=(), geolocation=(), payment=()',
    'cross-origin-opener-policy': 'same-origin',
  });
  // For browsers that predate frame-ancestors.
  if (frameAncestors === NO_FRAMING) reply.header('x-frame-options', 'DENY');
  else reply.removeHeader('x-frame-options');
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

interface ShellOptions {
  title: string;
  assetBase: string;
  /** The page's locale: `<html lang dir>`, its words, and the catalog its script gets. */
  locale: LocaleCode;
  /** The page's query without `lang`, for the language picker's links. */
  url?: { query: Record<string, string> };
  /** Attributes for `<body>` the client reads (never secrets). */
  data?: Record<string, string>;
  /** Loads the client module; a page without it is static HTML. */
  script?: string;
  /** Server-rendered content of `<main>`, already escaped. */
  main?: string;
  /** Framed by another site (`?embed=1`, embed-mode.ts): no header, no language picker. */
  embed?: boolean;
}

/** Catalog keys no page reads (mails, the certificate page): left out of what pages carry. */
const NOT_FOR_PAGES = /^(mail|cert|sms)\./;
const pageCatalogs = new Map<LocaleCode, string>();

/** A locale's messages for the pages, as JSON safe inside `<script type="application/json">`. */
function pageCatalogJson(locale: LocaleCode): string {
  let json = pageCatalogs.get(locale);
  if (json === undefined) {
    const entries = Object.entries(catalogOf(locale)).filter(([k]) => !NOT_FOR_PAGES.test(k));
    json = JSON.stringify(Object.fromEntries(entries)).replace(/</g, '\\u003c');
    pageCatalogs.set(locale, json);
  }
  return json;
}

/** Links to the page in every locale (`?lang=`), the current one marked; works without script. */
function languagePicker(locale: LocaleCode, url: NonNullable<ShellOptions['url']>): string {
  const t = translator(locale).t;
  const items = LOCALES.map((l) => {
    const query = new URLSearchParams({ ...url.query, lang: l.code }).toString();
    const current = l.code === locale ? ' aria-current="true"' : '';
    // A query-only link: the page's own path (which may hold a signing token) is never written out.
    return `<li><a href="${escapeHtml(`?${query}`)}" lang="${l.code}" dir="${l.direction}" hreflang="${l.code}"${current}>${escapeHtml(l.nativeName)}</a></li>`;
  }).join('');
  const here = LOCALES.find((l) => l.code === locale)!;
  return `<details class="lang-picker">
        <summary><span class="visually-hidden">${escapeHtml(t('page.language'))}: </span><span lang="${here.code}">${escapeHtml(here.nativeName)}</span></summary>
        <ul class="lang-list">${items}</ul>
      </details>`;
}

/** The HTML shell shared by the signing page and its error pages. */
export function renderShell(options: ShellOptions): string {
  const { locale } = options;
  const t = translator(locale).t;
  const data = Object.entries(options.data ?? {})
    .map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`)
    .join('');
  const script = options.script
    ? `\n  <script type="module" src="${escapeHtml(options.assetBase + options.script)}"></script>`
    : '';
  // Only pages with a script read the catalog; a static page is already in its language. It comes
  // last, after what the page shows: the browser parses and paints the page before its 20 KB.
  const messages = options.script
    ? `\n  <script type="application/json" id="signet-messages">${pageCatalogJson(locale)}</script>`
    : '';
  const picker = options.url && !options.embed ? languagePicker(locale, options.url) : '';
  const header = options.embed
    ? ''
    : `
  <header class="topbar">
    <div class="topbar-inner">
      <span class="brand" aria-label="Signet"><span class="brand-mark" aria-hidden="true"></span>Signet</span>
      <span class="topbar-doc" id="topbar-doc"></span>
      ${picker}
    </div>
  </header>`;
  return `<!doctype html>
<html lang="${locale}" dir="${directionOf(locale)}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex, nofollow">
  <meta name="referrer" content="no-referrer">
  <meta name="color-scheme" content="light">
  <title>${escapeHtml(options.title)}</title>
  <link rel="icon" href="${escapeHtml(options.assetBase)}favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="${escapeHtml(options.assetBase)}signing.css">${script}
</head>
<body${data}>
  <a class="skip-link" href="#main">${escapeHtml(t('page.skipToContent'))}</a>${header}
  <main id="main" tabindex="-1">${options.main ?? ''}</main>
  <div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>${messages}
</body>
</html>
`;
}

/** A page's own query without `lang` (at most 10 short parameters), for its language picker. */
export function pageUrl(rawUrl: string): { query: Record<string, string> } {
  const url = new URL(rawUrl, 'http://page.invalid');
  const query: Record<string, string> = {};
  let kept = 0;
  for (const [k, v] of url.searchParams) {
    if (k === 'lang' || k.length > 20 || v.length > 300 || kept >= 10) continue;
    query[k] = v;
    kept++;
  }
  return { query };
}

/** The `?lang=` of a page's request, if any (a string of at most a language tag's length). */
export function langOf(query: unknown): string | undefined {
  const lang = (query as { lang?: unknown } | undefined)?.lang;
  return typeof lang === 'string' ? lang : undefined;
}

/** A page that only says something (an invalid or expired link and the like): no script runs. */
export function renderMessagePage(
  options: Omit<ShellOptions, 'main' | 'script' | 'data'> & { heading: string; text: string },
): string {
  const { heading, text, ...shell } = options;
  return renderShell({ ...shell, main: renderMessage(heading, text) });
}

/** A full-page message (invalid link and the like), readable with or without JavaScript. */
function renderMessage(title: string, message: string): string {
  return `
    <section class="state-card state-error" aria-labelledby="state-title">
      <div class="state-icon" aria-hidden="true"></div>
      <h1 id="state-title">${escapeHtml(title)}</h1>
      <p>${escapeHtml(message)}</p>
    </section>`;
}
