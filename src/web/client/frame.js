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

/*
 * Framed by embed.js, the iframe is as tall as the page, so the page's own viewport is the whole
 * page: the action bar fixed to its bottom, or a dialog centred in it, would be wherever the host
 * page is not showing (at the end of the document, or below the fold). The part of the page the
 * host's window shows is measured with IntersectionObserver, which measures against the top-level
 * window even across origins, on 1-pixel-wide strips stacked over the page (one observer on the
 * whole page would hear nothing while the host scrolls through its middle). <html> gets
 * `--hidden-top` and `--hidden-bottom`, how much of the page's viewport is out of sight above and
 * below; the action bar and the dialogs keep to the rest (signing.css). Nothing is posted.
 */
const STRIP = 128;
const STEPS = 32; // thresholds per strip: an edge found within 4 px

function watchPartInView() {
  const layer = document.createElement('div');
  layer.className = 'view-probes';
  layer.setAttribute('aria-hidden', 'true');
  document.body.append(layer);
  /** Each strip's part in view, in page coordinates (null: out of view). */
  const inView = new Map();
  const style = document.documentElement.style;
  const apply = () => {
    let top = Number.POSITIVE_INFINITY;
    let bottom = Number.NEGATIVE_INFINITY;
    for (const part of inView.values()) {
      if (!part) continue;
      top = Math.min(top, part.top);
      bottom = Math.max(bottom, part.bottom);
    }
    // Out of the host's view altogether: as a page on its own.
    const hiddenTop = bottom > top ? Math.max(0, Math.round(top - scrollY)) : 0;
    const hiddenBottom =
      bottom > top ? Math.max(0, Math.round(innerHeight - (bottom - scrollY))) : 0;
    style.setProperty('--hidden-top', `${hiddenTop}px`);
    style.setProperty('--hidden-bottom', `${hiddenBottom}px`);
  };
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const r = entry.intersectionRect;
        inView.set(
          entry.target,
          entry.isIntersecting && r.height > 0
            ? { top: r.top + scrollY, bottom: r.bottom + scrollY }
            : null,
        );
      }
      apply();
    },
    { threshold: Array.from({ length: STEPS + 1 }, (_, i) => i / STEPS) },
  );
  // As many strips as the page is tall; the layer clips the last one to the page's end.
  const cover = () => {
    const height = Math.ceil(document.body.getBoundingClientRect().bottom + scrollY);
    layer.style.height = `${height}px`;
    const count = Math.max(1, Math.ceil(height / STRIP));
    while (layer.childElementCount < count) {
      const strip = document.createElement('div');
      strip.style.height = `${STRIP}px`;
      layer.append(strip);
      observer.observe(strip);
    }
    while (layer.childElementCount > count) {
      const strip = layer.lastElementChild;
      observer.unobserve(strip);
      inView.delete(strip);
      strip.remove();
    }
  };
  new ResizeObserver(cover).observe(document.body);
  addEventListener('scroll', apply, { passive: true });
  addEventListener('resize', apply);
  cover();
}

if (embedded && typeof IntersectionObserver === 'function' && typeof ResizeObserver === 'function')
  watchPartInView();

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
