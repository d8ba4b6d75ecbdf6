// A page shown inside another site's iframe (`?embed=1`, README "Embedding"). With `&origin=`
// that the organization lists in its embedOrigins (the server checks it and writes it on <body>),
// the page tells its parent what happens: messages `{source: "signet", type, documentId,
// signerId?, …}` posted with exactly that targetOrigin, never "*". Without an allowed origin the
// page posts nothing.

const body = document.body.dataset;
/** True when the page runs framed without Signet's own header (`?embed=1`). */
export const embedded = body.embed === '1';
const origin = body.embedOrigin || null;
const ids = { documentId: null, signerId: undefined };

/** The document (and signer) the next messages are about. */
export function frameIds(documentId, signerId) {
  ids.documentId = documentId ?? null;
  if (signerId) ids.signerId = signerId;
}

/** Posts one message to the host page; does nothing when the page is not framed by an allowed origin. */
export function postToHost(type, extra = {}) {
  if (!origin || window.parent === window) return;
  const message = { source: 'signet', type, documentId: ids.documentId };
  if (ids.signerId) message.signerId = ids.signerId;
  window.parent.postMessage({ ...message, ...extra }, origin);
}

const posted = new Set();
/** Posts a message the host hears once per page (`ready`, `viewed`), however often the page restarts its steps. */
export function postOnce(type) {
  if (posted.has(type)) return;
  posted.add(type);
  postToHost(type);
}

/** An error for the host page: `{code, message}` (the API's code, or `error`). */
export function postError(err) {
  postToHost('error', {
    code: typeof err?.code === 'string' ? err.code : 'error',
    message: typeof err?.message === 'string' ? err.message : String(err ?? ''),
  });
}

let lastHeight = 0;
/** Posts `resize` with the content's height whenever it changes (ResizeObserver). */
function watchHeight() {
  const measure = () => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    postToHost('resize', { height });
  };
  new ResizeObserver(measure).observe(document.body);
  measure();
}

if (origin && typeof ResizeObserver === 'function') watchHeight();

/**
 * After the signer completed (`completed`) or declined (`declined`): the host page hears it; a
 * page that is not framed sends the signer on to the document's `redirectUrl`, if it has one
 * (the API answers none for an embedded signer).
 */
export function finishedSigning(type, result) {
  postToHost(type);
  if (!embedded && typeof result?.redirectUrl === 'string' && /^https?:/i.test(result.redirectUrl))
    location.assign(result.redirectUrl);
}
