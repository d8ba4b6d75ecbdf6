// The public campaign API (`/api/v1/public/campaigns/{slug}`), as the campaign page calls it. Its
// errors have the signing API's body ({error: {code, message, details}}) and reach the page as an
// ApiError (api.js).

import { ApiError, refusal, uploadFieldFile } from './api.js';
import { locale, t } from './i18n.js';

export function campaignApi(slug) {
  const base = `/api/v1/public/campaigns/${encodeURIComponent(slug)}`;
  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(base + path, {
        method,
        // The page's language first: the visitor's code mail and signed copy speak it.
        headers:
          body === undefined
            ? { accept: 'application/json', 'accept-language': locale }
            : {
                accept: 'application/json',
                'accept-language': locale,
                'content-type': 'application/json',
              },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network_error', t('error.network'));
    }
    const json = await res.json().catch(() => null);
    if (!res.ok) throw refusal(res, json);
    return json?.data ?? json;
  }
  return {
    get: () => call('GET', ''),
    async file() {
      const res = await fetch(`${base}/file`, { credentials: 'omit', cache: 'no-store' }).catch(
        () => null,
      );
      if (!res?.ok)
        throw new ApiError(res?.status ?? 0, 'file_error', t('error.documentNotLoaded'));
      return new Uint8Array(await res.arrayBuffer());
    },
    requestOtp: (email) => call('POST', '/otp', { email }),
    submit: (body) => call('POST', '/submissions', body),
    /** A `file` field's file before submitting: resolves to the attachment id. */
    fieldFile: (fieldId, file) => uploadFieldFile(base, fieldId, file),
  };
}
