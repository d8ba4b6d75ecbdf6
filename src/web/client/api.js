// The signing API, authenticated by the token of the link, and what the campaign page's API
// (campaign-api.js) shares with it. Every error has the API's body {error: {code, message,
// details}}; it reaches the page as an ApiError.

import { t } from './i18n.js';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? [];
  }
}

/** The ApiError of a refused answer: the API's own code, sentence and details when its body has them. */
export function refusal(res, json) {
  const err = json?.error;
  return new ApiError(
    res.status,
    err?.code ?? 'http_error',
    err?.message ?? t('error.serverAnswered', { status: res.status }),
    err?.details,
  );
}

/** Sends a file's bytes as they are, typed by `headers`; resolves to the API's JSON answer. */
async function sendFile(method, url, file, headers) {
  let res;
  try {
    res = await fetch(url, { method, headers, body: file, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'network_error', t('error.uploadNetwork'));
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw refusal(res, json);
  return json;
}

/**
 * A `file` field's file, to `{base}/fields/{id}/file` of the signing or campaign API: the bytes as
 * they are, typed by their own Content-Type (`headers` adds to them); resolves to the attachment id.
 */
export async function uploadFieldFile(base, fieldId, file, headers = (h) => h) {
  const url = `${base}/fields/${encodeURIComponent(fieldId)}/file?filename=${encodeURIComponent(file.name.slice(0, 200))}`;
  const json = await sendFile(
    'PUT',
    url,
    file,
    headers({
      'content-type': file.type || 'application/octet-stream',
      accept: 'application/json',
    }),
  );
  return json.data.attachmentId;
}

/**
 * `store` (optional): where the signing session of an access code is kept; when it holds one,
 * every call carries it as X-Signing-Session.
 */
export function signingApi(token, store) {
  const base = `/api/v1/signing/${encodeURIComponent(token)}`;
  const withSession = (headers) => {
    const session = store?.get();
    return session ? { ...headers, 'x-signing-session': session } : headers;
  };

  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(base + path, {
        method,
        headers: withSession(
          body === undefined
            ? { accept: 'application/json' }
            : { accept: 'application/json', 'content-type': 'application/json' },
        ),
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network_error', t('error.network'));
    }
    if (res.status === 204) return null;
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // A proxy's HTML error page: fall through to a generic message.
    }
    if (!res.ok) throw refusal(res, json);
    return json?.data ?? json;
  }

  return {
    get: () => call('GET', ''),
    async file() {
      let res;
      try {
        res = await fetch(`${base}/file`, {
          headers: withSession({}),
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch {
        throw new ApiError(0, 'network_error', t('error.downloadFailed'));
      }
      if (!res.ok) {
        const json = await res.json().catch(() => null);
        throw new ApiError(
          res.status,
          json?.error?.code ?? 'http_error',
          json?.error?.message ?? t('error.documentNotLoaded'),
        );
      }
      return new Uint8Array(await res.arrayBuffer());
    },
    requestOtp: () => call('POST', '/otp', {}),
    access: (accessCode) => call('POST', '/access', { accessCode }),
    consent: () => call('POST', '/consent', {}),
    complete: (body) => call('POST', '/complete', body),
    decline: (reason) => call('POST', '/decline', { reason }),
    /** Hands over to `{name, email, reason}`: this link stops working. */
    reassign: (body) => call('POST', '/reassign', body),
    /** A `file` field's file: resolves to the attachment id. */
    fieldFile: (fieldId, file) => uploadFieldFile(base, fieldId, file, withSession),
    /** Identity evidence (KYC): the image bytes as they are, typed by their own Content-Type. */
    async identity(file) {
      const headers = withSession({ 'content-type': file.type, accept: 'application/json' });
      const json = await sendFile('POST', `${base}/identity`, file, headers);
      return json?.data ?? json;
    },
  };
}
