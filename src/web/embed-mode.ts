import type { LocaleCode } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';
import { renderMessagePage } from './page.ts';

/*
 * `?embed=1` on the signing and campaign pages (README "Embedding"): the page drops Signet's own
 * header and, with `&origin=<origin>`, posts what happens to the framing page with exactly that
 * origin as targetOrigin. Only an origin the organization lists in `embedOrigins` is ever written
 * into the page; any other is refused, and the page then shows an error instead of running.
 */

/** Longest `origin` parameter looked at (an origin is scheme, host and port). */
const ORIGIN_MAX = 300;

export interface EmbedMode {
  /** `?embed=1`: no header. */
  embed: boolean;
  /** The allowed origin the page posts to, as stored in `embedOrigins`. */
  origin?: string;
  /** An `origin` was given that the organization does not list. */
  refused: boolean;
}

/** The embed mode a page's query asks for, checked against its organization's embed origins. */
export function embedModeOf(query: unknown, embedOrigins: readonly string[]): EmbedMode {
  const q = (query ?? {}) as { embed?: unknown; origin?: unknown };
  const embed = q.embed === '1';
  if (!embed || q.origin === undefined) return { embed, refused: false };
  const given = typeof q.origin === 'string' && q.origin.length <= ORIGIN_MAX ? q.origin : '';
  let origin: string | undefined;
  try {
    origin = new URL(given).origin;
  } catch {
    origin = undefined;
  }
  // `new URL('https://a.example/x').origin` drops a path: only an origin as such is accepted.
  if (origin === undefined || origin !== given.replace(/\/$/, '') || !embedOrigins.includes(origin))
    return { embed, refused: true };
  return { embed, origin, refused: false };
}

/** The `<body>` attributes the page's script reads (client/frame.js). */
export function embedData(mode: EmbedMode): Record<string, string> {
  if (!mode.embed) return {};
  return mode.origin ? { embed: '1', 'embed-origin': mode.origin } : { embed: '1' };
}

/** The page instead of a signing or campaign page asked to post to an origin not allowed: no script runs. */
export function refusedOriginPage(locale: LocaleCode, assetBase: string): string {
  const { t } = translator(locale);
  return renderMessagePage({
    title: t('embed.originRefusedTitle'),
    assetBase,
    locale,
    embed: true,
    heading: t('embed.originRefusedTitle'),
    text: t('embed.originRefusedText'),
  });
}
