// The signature pad: draw with a finger, pen or mouse (Pointer Events), or type a name shown in a
// script font. Resolves to {kind: 'drawn', value: PNG data URL} or {kind: 'typed', value: text},
// or null when the signer cancels.

import { h, nextId } from './dom.js';
import { typedSignatureClass } from './typed-signature.js';
import { t } from './i18n.js';

/** Strokes are kept in page-independent units (fractions of the pad) so a resize can redraw them. */
class Ink {
  constructor(canvas, onChange) {
    this.canvas = canvas;
    this.onChange = onChange;
    this.strokes = [];
    this.current = null;
    canvas.addEventListener('pointerdown', (e) => this.#down(e));
    canvas.addEventListener('pointermove', (e) => this.#move(e));
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture'])
      canvas.addEventListener(type, () => this.#up());
  }

  get empty() {
    return this.strokes.length === 0;
  }

  clear() {
    this.strokes = [];
    this.redraw();
    this.onChange();
  }

  #point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height];
  }

  #down(e) {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    e.preventDefault();
    this.canvas.setPointerCapture(e.pointerId);
    this.current = [this.#point(e)];
    this.strokes.push(this.current);
    this.redraw();
    this.onChange();
  }

  #move(e) {
    if (!this.current) return;
    e.preventDefault();
    // Coalesced events carry the points the browser merged between frames: smoother fast strokes.
    const events = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [];
    for (const ev of events.length ? events : [e]) this.current.push(this.#point(ev));
    this.redraw();
  }

  #up() {
    this.current = null;
  }

  /** Fits the backing store to the element (sharp on high-DPI screens) and repaints every stroke. */
  redraw() {
    const c = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const w = Math.round(c.clientWidth * ratio);
    const hgt = Math.round(c.clientHeight * ratio);
    if (c.width !== w || c.height !== hgt) {
      c.width = w;
      c.height = hgt;
    }
    paint(c.getContext('2d'), this.strokes, w, hgt, 1);
  }

  /** A tight PNG of the ink with a small margin, at least 2x the pad's CSS size for print. */
  toDataUrl() {
    const scale = Math.max(2, window.devicePixelRatio || 1);
    const w = Math.round(this.canvas.clientWidth * scale);
    const hgt = Math.round(this.canvas.clientHeight * scale);
    const full = document.createElement('canvas');
    full.width = w;
    full.height = hgt;
    paint(full.getContext('2d'), this.strokes, w, hgt, scale / (window.devicePixelRatio || 1));
    let minX = 1,
      minY = 1,
      maxX = 0,
      maxY = 0;
    for (const s of this.strokes) {
      for (const [x, y] of s) {
        minX = Math.min(minX, x);
        minY = Math.min(minY, y);
        maxX = Math.max(maxX, x);
        maxY = Math.max(maxY, y);
      }
    }
    const pad = 0.03;
    const x0 = Math.max(0, Math.floor((minX - pad) * w));
    const y0 = Math.max(0, Math.floor((minY - pad * 3) * hgt));
    const x1 = Math.min(w, Math.ceil((maxX + pad) * w));
    const y1 = Math.min(hgt, Math.ceil((maxY + pad * 3) * hgt));
    const out = document.createElement('canvas');
    out.width = Math.max(1, x1 - x0);
    out.height = Math.max(1, y1 - y0);
    out
      .getContext('2d')
      .drawImage(full, x0, y0, out.width, out.height, 0, 0, out.width, out.height);
    return out.toDataURL('image/png');
  }
}

function paint(ctx, strokes, w, hgt, weight) {
  ctx.clearRect(0, 0, w, hgt);
  ctx.strokeStyle = '#111827';
  ctx.fillStyle = '#111827';
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.lineWidth = Math.max(1.5, hgt * 0.014) * weight;
  for (const s of strokes) {
    const pts = s.map(([x, y]) => [x * w, y * hgt]);
    if (pts.length === 1) {
      ctx.beginPath();
      ctx.arc(pts[0][0], pts[0][1], ctx.lineWidth / 2, 0, Math.PI * 2);
      ctx.fill();
      continue;
    }
    // Quadratic curves through the midpoints: smooth lines without a spline library.
    ctx.beginPath();
    ctx.moveTo(pts[0][0], pts[0][1]);
    for (let i = 1; i < pts.length - 1; i++) {
      const mx = (pts[i][0] + pts[i + 1][0]) / 2;
      const my = (pts[i][1] + pts[i + 1][1]) / 2;
      ctx.quadraticCurveTo(pts[i][0], pts[i][1], mx, my);
    }
    const last = pts[pts.length - 1];
    ctx.lineTo(last[0], last[1]);
    ctx.stroke();
  }
}

/** The first letters of each word: "Ada Lovelace" → "AL". */
export function initialsOf(name) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase())
    .join('')
    .slice(0, 4);
}

/**
 * Opens the pad. `mode` is 'signature' or 'initials'; `name` prefills the typed tab; `maxChars`
 * caps a typed signature (the API's limit).
 * Resolves to the adopted mark, or null when cancelled.
 */
export function openSignaturePad({ mode = 'signature', name = '', maxChars = 200 } = {}) {
  return new Promise((resolve) => {
    const isInitials = mode === 'initials';
    const title = isInitials ? t('pad.titleInitials') : t('pad.titleSignature');
    const titleId = nextId('pad-title');
    const errorId = nextId('pad-error');
    let tab = 'draw';
    let result = null;

    const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
    const canvas = h('canvas', {
      'aria-label': isInitials ? t('pad.drawAreaInitials') : t('pad.drawAreaSignature'),
    });
    const wrap = h(
      'div',
      { class: 'pad-wrap' },
      canvas,
      h('div', { class: 'pad-line' }),
      h(
        'span',
        { class: 'pad-hint' },
        isInitials ? t('pad.drawHintInitials') : t('pad.drawHintSignature'),
      ),
    );
    const ink = new Ink(canvas, () => {
      wrap.classList.toggle('has-ink', !ink.empty);
      error.textContent = '';
    });

    const typedId = nextId('typed');
    const typed = h('input', {
      class: 'input',
      id: typedId,
      dir: 'auto',
      type: 'text',
      autocomplete: isInitials ? 'off' : 'name',
      maxlength: isInitials ? '6' : String(maxChars),
      value: isInitials ? initialsOf(name) : name,
      'aria-describedby': errorId,
    });
    const preview = h('div', {
      class: 'typed-preview',
      'aria-hidden': 'true',
      // Shown (by the stylesheet) while nothing is typed, in the page's language.
      'data-placeholder': t(isInitials ? 'field.initials' : 'field.signature'),
    });
    const syncPreview = () => {
      preview.textContent = typed.value.trim();
      preview.className = `typed-preview ${typedSignatureClass(preview.textContent)}`;
      error.textContent = '';
    };
    typed.addEventListener('input', syncPreview);
    syncPreview();

    const drawPanelId = nextId('panel');
    const typePanelId = nextId('panel');
    const drawTab = h(
      'button',
      {
        type: 'button',
        class: 'tab',
        role: 'tab',
        id: nextId('tab'),
        'aria-controls': drawPanelId,
      },
      t('pad.draw'),
    );
    const typeTab = h(
      'button',
      {
        type: 'button',
        class: 'tab',
        role: 'tab',
        id: nextId('tab'),
        'aria-controls': typePanelId,
      },
      t('pad.type'),
    );
    const drawPanel = h(
      'div',
      { role: 'tabpanel', id: drawPanelId, 'aria-labelledby': drawTab.id },
      wrap,
      h(
        'div',
        { class: 'pad-tools' },
        h('span', {}, t('pad.useMouse')),
        h(
          'button',
          { type: 'button', class: 'btn-link', onclick: () => ink.clear() },
          t('pad.clear'),
        ),
      ),
    );
    const typePanel = h(
      'div',
      { role: 'tabpanel', id: typePanelId, 'aria-labelledby': typeTab.id },
      h(
        'div',
        { class: 'form-row' },
        h(
          'label',
          { for: typedId },
          isInitials ? t('pad.typeLabelInitials') : t('pad.typeLabelSignature'),
        ),
        typed,
      ),
      preview,
    );

    const select = (next, focus = false) => {
      tab = next;
      for (const [t, panel, name] of [
        [drawTab, drawPanel, 'draw'],
        [typeTab, typePanel, 'type'],
      ]) {
        const on = name === next;
        t.setAttribute('aria-selected', String(on));
        t.tabIndex = on ? 0 : -1;
        panel.hidden = !on;
      }
      error.textContent = '';
      if (next === 'draw') requestAnimationFrame(() => ink.redraw());
      if (focus) (next === 'draw' ? drawTab : typeTab).focus();
    };
    drawTab.addEventListener('click', () => select('draw'));
    typeTab.addEventListener('click', () => select('type'));
    const tablist = h(
      'div',
      { class: 'tabs', role: 'tablist', 'aria-label': t('pad.howToSign') },
      drawTab,
      typeTab,
    );
    tablist.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight' || e.key === 'ArrowLeft' || e.key === 'Home' || e.key === 'End') {
        e.preventDefault();
        select(tab === 'draw' ? 'type' : 'draw', true);
      }
    });

    const adopt = () => {
      if (tab === 'draw') {
        if (ink.empty) {
          error.textContent = isInitials ? t('pad.drawFirstInitials') : t('pad.drawFirstSignature');
          return;
        }
        result = { kind: 'drawn', value: ink.toDataUrl() };
      } else {
        const text = typed.value.trim();
        if (!text) {
          error.textContent = isInitials
            ? t('pad.typeMissingInitials')
            : t('pad.typeMissingSignature');
          typed.setAttribute('aria-invalid', 'true');
          typed.focus();
          return;
        }
        result = { kind: 'typed', value: text };
      }
      dialog.close();
    };

    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId, class: 'signature-dialog' },
      h(
        'form',
        {
          method: 'dialog',
          onsubmit: (e) => {
            e.preventDefault();
            adopt();
          },
        },
        h(
          'div',
          { class: 'dialog-body' },
          h('h2', { id: titleId }, title),
          tablist,
          drawPanel,
          typePanel,
          error,
          h(
            'p',
            { class: 'legal' },
            isInitials ? t('pad.consentInitials') : t('pad.consentSignature'),
          ),
        ),
        h(
          'div',
          { class: 'dialog-actions' },
          h(
            'button',
            { type: 'button', class: 'btn btn-secondary', onclick: () => dialog.close() },
            t('pad.cancel'),
          ),
          h('button', { type: 'submit', class: 'btn btn-primary' }, t('pad.adopt')),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    select('draw');
    dialog.showModal();
    drawTab.focus();
    const ro = new ResizeObserver(() => ink.redraw());
    ro.observe(canvas);
    dialog.addEventListener('close', () => ro.disconnect());
  });
}
