// Renders a PDF with pdf.js, every page as a canvas sized to the available width. Each page has
// a `layer` element over it, in the page's own coordinates: children placed in percent of the
// page stay on their spot at any zoom or screen width.

import { h } from './dom.js';
import { t } from './i18n.js';

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

/**
 * Builds one element per page (right size from the start, so the layout never jumps), renders the
 * pages near the viewport, and re-renders them sharper or smaller when the width changes.
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
    const ratio = Math.min(window.devicePixelRatio || 1, 2.5);
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
  return pages;
}

function reportRenderError(err) {
  console.error('Page rendering failed', err);
}
