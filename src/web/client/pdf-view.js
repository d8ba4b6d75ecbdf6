// Renders a PDF with pdf.js, every page as a canvas sized to the available width. Each page has
// a `layer` element over it, in the page's own coordinates: children placed in percent of the
// page stay on their spot at any zoom or screen width.

import { h } from './dom.js';
import { locale, t } from './i18n.js';

/** Zoom steps, as a share of the width that fits the screen. */
export const ZOOM_STEPS = [1, 1.25, 1.5, 2, 3];
/** Most canvas pixels for one page: at 300% on a 3x phone a page would otherwise take ~100 MB. */
const MAX_PIXELS = 16_000_000;

/** Loads pdf.js from Signet (`base` is its versioned folder) and opens the document bytes. */
export async function openPdf(bytes, base) {
  const pdfjs = await import(`${base}pdf.min.mjs`);
  pdfjs.GlobalWorkerOptions.workerSrc = `${base}pdf.worker.min.mjs`;
  return pdfjs.getDocument({
    data: bytes,
    // The page's CSP forbids eval; say so, so pdf.js does not try.
    isEvalSupported: false,
    enableXfa: false,
    standardFontDataUrl: `${base}standard_fonts/`,
    cMapUrl: `${base}cmaps/`,
    cMapPacked: true,
    wasmUrl: `${base}wasm/`,
  }).promise;
}

/** The document's pages' container, saying the document is loading until `renderPages` fills it. */
export function pagesLoading() {
  return h(
    'div',
    { class: 'pages', 'aria-label': t('signing.documentLabel') },
    h(
      'div',
      { class: 'loading' },
      h('div', { class: 'spinner', 'aria-hidden': 'true' }),
      h('p', {}, t('signing.loadingDocument')),
    ),
  );
}

/**
 * Builds one element per page (right size from the start, so the layout never jumps), renders the
 * pages near the viewport, and re-renders them sharper or smaller when the width changes.
 * Puts the zoom controls (see `zoomBar`) just before `container`, which scrolls sideways when
 * zoomed in (the page itself never does).
 * Returns [{number, element, layer, width, height}].
 */
export async function renderPages(pdf, container) {
  const pages = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const { width, height } = page.getViewport({ scale: 1 });
    const canvas = h('canvas', {
      role: 'img',
      'aria-label': t('signing.pageOf', { page: n, pages: pdf.numPages }),
    });
    const text = h('div', { class: 'visually-hidden', id: `page-text-${n}` });
    const layer = h('div', { class: 'page-fields' });
    const element = h(
      'section',
      {
        class: 'page',
        'aria-label': t('signing.pageOf', { page: n, pages: pdf.numPages }),
        dataset: { page: String(n) },
      },
      canvas,
      text,
      layer,
      // A left-to-right run, so a right-to-left page does not read "2 / 1" for page 1 of 2.
      h(
        'span',
        { class: 'page-label', 'aria-hidden': 'true', dir: 'ltr' },
        `${n} / ${pdf.numPages}`,
      ),
    );
    element.style.aspectRatio = `${width} / ${height}`;
    container.append(element);
    pages.push({
      number: n,
      page,
      element,
      canvas,
      text,
      layer,
      width,
      height,
      renderedWidth: 0,
      task: null,
      textDone: false,
    });
  }

  const render = async (p) => {
    const cssWidth = p.element.clientWidth;
    if (!cssWidth || Math.abs(cssWidth - p.renderedWidth) < 2) return;
    p.renderedWidth = cssWidth;
    // Cap the backing store: a phone at 3x on a long page would otherwise allocate hundreds of MB.
    const cssHeight = (cssWidth * p.height) / p.width;
    const ratio = Math.min(
      window.devicePixelRatio || 1,
      2.5,
      Math.sqrt(MAX_PIXELS / (cssWidth * cssHeight)),
    );
    const viewport = p.page.getViewport({ scale: (cssWidth * ratio) / p.width });
    p.task?.cancel();
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    const task = p.page.render({ canvas, viewport });
    p.task = task;
    try {
      await task.promise;
    } catch (err) {
      if (err?.name === 'RenderingCancelledException') return;
      throw err;
    }
    // Swap only once drawn, so a re-render never flashes a blank page.
    for (const attr of ['role', 'aria-label'])
      canvas.setAttribute(attr, p.canvas.getAttribute(attr));
    p.canvas.replaceWith(canvas);
    p.canvas = canvas;
    p.task = null;
    p.element.dataset.rendered = 'true';
    if (!p.textDone) {
      // The canvas is an image to assistive technology; give screen readers the page's words too.
      p.textDone = true;
      const content = await p.page.getTextContent();
      p.text.textContent = content.items.map((i) => ('str' in i ? i.str : '')).join(' ');
    }
  };

  const visible = new Set();
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const p = pages[Number(e.target.dataset.page) - 1];
        if (e.isIntersecting) {
          visible.add(p);
          render(p).catch(reportRenderError);
        } else visible.delete(p);
      }
    },
    { rootMargin: '600px 0px' },
  );
  for (const p of pages) io.observe(p.element);

  let timer;
  const ro = new ResizeObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const p of visible) render(p).catch(reportRenderError);
    }, 150);
  });
  ro.observe(container);

  container.before(
    zoomBar(container, () => {
      for (const p of visible) render(p).catch(reportRenderError);
    }),
  );
  return pages;
}

/**
 * "−", the zoom level, "+" and "Fit width" for the pages in `container`. A zoom sets `--zoom`
 * on it (the pages' width is that share of the container's) and calls `rerender`, so the pages
 * are drawn again at their new size, sharp rather than a stretched bitmap. The fields are placed
 * in percent of their page, so they follow. The new level is announced to screen readers.
 */
function zoomBar(container, rerender) {
  let step = 0;
  const percent = new Intl.NumberFormat(locale, { style: 'percent' });
  const button = (label, text, cls) =>
    h(
      'button',
      { type: 'button', class: `btn btn-secondary zoom-btn ${cls}`, 'aria-label': label },
      text,
    );
  const out = button(t('signing.zoomOut'), '−', 'zoom-out');
  const zoomIn = button(t('signing.zoomIn'), '+', 'zoom-in');
  const fit = h(
    'button',
    { type: 'button', class: 'btn btn-secondary zoom-fit' },
    t('signing.zoomFit'),
  );
  const level = h('span', { class: 'zoom-level', 'aria-hidden': 'true' });
  const live = h('span', { class: 'visually-hidden', role: 'status' });

  const set = (next, announce) => {
    step = Math.max(0, Math.min(ZOOM_STEPS.length - 1, next));
    const zoom = ZOOM_STEPS[step];
    // Keep the reader's place while the pages grow or shrink: the spot in the middle of the
    // document area stays there (scrollLeft counts from the start edge, negative right to left),
    // and once the pages' top has scrolled away, the spot at the top of the screen stays there
    // (before that, nothing moves under the finger pressing the buttons again).
    const sign = getComputedStyle(container).direction === 'rtl' ? -1 : 1;
    const across =
      (sign * container.scrollLeft + container.clientWidth / 2) / (container.scrollWidth || 1);
    const box = container.getBoundingClientRect();
    const down = -box.top / (box.height || 1);
    container.style.setProperty('--zoom', String(zoom));
    container.classList.toggle('zoomed', zoom > 1);
    container.scrollLeft = sign * (across * container.scrollWidth - container.clientWidth / 2);
    if (down > 0 && down < 1) {
      const after = container.getBoundingClientRect();
      window.scrollBy(0, after.top + down * after.height);
    }
    level.textContent = percent.format(zoom);
    // aria-disabled rather than disabled: the focus stays on a button pressed to its limit.
    out.setAttribute('aria-disabled', String(step === 0));
    zoomIn.setAttribute('aria-disabled', String(step === ZOOM_STEPS.length - 1));
    fit.setAttribute('aria-disabled', String(step === 0));
    if (announce) live.textContent = t('signing.zoomLevel', { percent: zoom });
    rerender();
  };
  const onClick = (el, next) =>
    el.addEventListener('click', () => {
      if (el.getAttribute('aria-disabled') !== 'true') set(next(), true);
    });
  onClick(out, () => step - 1);
  onClick(zoomIn, () => step + 1);
  onClick(fit, () => 0);
  set(0, false);
  return h(
    'div',
    { class: 'zoom', role: 'group', 'aria-label': t('signing.zoomControls') },
    out,
    level,
    zoomIn,
    fit,
    live,
  );
}

function reportRenderError(err) {
  console.error('Page rendering failed', err);
}
