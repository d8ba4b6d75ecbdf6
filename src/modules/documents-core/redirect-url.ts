import { AppError } from '../../http/errors.ts';

/** Longest `redirectUrl` a document takes. */
export const REDIRECT_URL_MAX = 2000;

/**
 * A document's `redirectUrl` as stored: null (none) or an absolute URL without spaces, `https:`
 * in production (`http:` is allowed outside it, for local development); 400 `validation_error`
 * otherwise.
 */
export function checkDocumentRedirectUrl(
  url: string | null | undefined,
  production: boolean,
): string | null | undefined {
  if (url === undefined || url === null) return url;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const schemes = production ? ['https:'] : ['http:', 'https:'];
  if (!parsed || !schemes.includes(parsed.protocol) || !/^https?:\/\/\S+$/i.test(url)) {
    const message = production
      ? 'must be an absolute https URL'
      : 'must be an absolute http or https URL';
    throw new AppError('validation_error', `body.redirectUrl ${message}`, [
      { path: 'body.redirectUrl', message },
    ]);
  }
  return url;
}
