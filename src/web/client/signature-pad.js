// The signature pad: draw with a finger, pen or mouse (the strokes: ink.js), or type a name shown in a
// script font. Resolves to {kind: 'drawn', value: PNG data URL} or {kind: 'typed', value: text},
// or null when the signer cancels.

import { h, nextId } from './dom.js';
import { Ink } from './ink.js';
import { typedSignatureClass } from './typed-signature.js';
import { t } from './i18n.js';

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
