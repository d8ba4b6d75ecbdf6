// The builder's fields over the rendered pages, and the gestures that make and change them: pointer
// events (mouse, pen and touch alike) to drag a type from the palette onto a page, to move a field
// and to resize it by its corner; and the keyboard (arrow keys move the selected field, Shift and
// the arrow keys resize it, Delete removes it). Positions are percent of the page, as in the API.

import { announce, h } from './dom.js';
import { t } from './i18n.js';

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), Math.max(lo, hi));
/** Pointer travel (CSS px) before a press on a palette item becomes a drag. */
const DRAG_START_PX = 4;
/** One arrow-key step, in percent of the page. */
const STEP = 1;

/** The name of a field type as a person reads it. */
export function typeName(type) {
  const own = {
    dropdown: 'builder.typeDropdown',
    radio: 'builder.typeRadio',
    file: 'builder.typeFile',
  };
  return t(own[type] ?? `field.${type}`);
}

/**
 * `pages`: what renderPages made; `state`: {fields, selected}; `types`: the registry's entries by
 * type; `partyName(order)`; `changed()`: after every change; `selected()`: after the selection
 * moved.
 */
export function builderCanvas({ pages, state, types, partyName, changed, selected }) {
  const elements = new Map();
  const pageOf = (n) => pages[n - 1];
  /** A size in points as percent of page `n`. */
  const pct = (n, size) => ({
    width: (size.width / pageOf(n).width) * 100,
    height: (size.height / pageOf(n).height) * 100,
  });
  const minOf = (f) => pct(f.page, types[f.type]?.minSize ?? { width: 10, height: 10 });

  function labelOf(f) {
    const name = f.label || typeName(f.type);
    return t('builder.fieldName', { name, party: partyName(f.assignedTo), page: f.page });
  }

  function place(el, f) {
    el.style.left = `${f.x}%`;
    el.style.top = `${f.y}%`;
    el.style.width = `${f.width}%`;
    el.style.height = `${f.height}%`;
    el.setAttribute('aria-label', labelOf(f));
    el.setAttribute('aria-pressed', String(state.selected === f.key));
    el.classList.toggle('is-selected', state.selected === f.key);
    el.classList.toggle('is-invalid', Boolean(f.invalid));
    el.dataset.type = f.type;
    el.querySelector('.b-field-name').textContent = f.label || typeName(f.type);
    const layer = pageOf(f.page).layer;
    if (el.parentElement !== layer) layer.append(el);
  }

  /** Puts every field on its page, adding and removing elements as the fields changed. */
  function draw() {
    const keys = new Set(state.fields.map((f) => f.key));
    for (const [key, el] of elements)
      if (!keys.has(key)) {
        el.remove();
        elements.delete(key);
      }
    for (const f of state.fields) {
      let el = elements.get(f.key);
      if (!el) {
        el = h(
          'div',
          {
            class: 'b-field',
            role: 'button',
            tabindex: '0',
            // The palette's hint says which keys move, resize and remove a field.
            'aria-describedby': 'b-hint',
            dataset: { key: f.key },
          },
          h('span', { class: 'b-field-name', 'aria-hidden': 'true' }),
          h('span', { class: 'b-handle', 'aria-hidden': 'true' }),
        );
        el.addEventListener('pointerdown', (e) => pressField(e, f.key));
        el.addEventListener('keydown', (e) => keyOnField(e, f.key));
        el.addEventListener('click', () => select(f.key));
        elements.set(f.key, el);
      }
      place(el, f);
    }
  }

  function select(key, focus = false) {
    state.selected = key;
    draw();
    if (focus && key) elements.get(key)?.focus();
    selected();
  }

  const find = (key) => state.fields.find((f) => f.key === key);

  /** A new field of `type` with its top-left corner at (x, y) percent of page `n`. */
  function add(type, n, x, y) {
    const size = pct(n, types[type].defaultSize);
    const width = Math.min(size.width, 100);
    const height = Math.min(size.height, 100);
    const f = {
      key: `new-${crypto.randomUUID()}`,
      type,
      label: '',
      page: n,
      x: clamp(x, 0, 100 - width),
      y: clamp(y, 0, 100 - height),
      width,
      height,
      required: true,
      readOnly: false,
      assignedTo: state.assignee,
      placeholder: null,
      defaultValue: null,
      options: types[type].options === 'required' ? [] : null,
    };
    state.fields.push(f);
    select(f.key, true);
    changed();
    announce(t('builder.added', { name: typeName(type), page: n }));
  }

  /** The page most of which is in view, and the middle of its visible part (percent). */
  function pageInView() {
    let best = { n: 1, seen: -1, y: 10 };
    for (const p of pages) {
      const r = p.element.getBoundingClientRect();
      const top = Math.max(r.top, 0);
      const bottom = Math.min(r.bottom, window.innerHeight);
      const seen = bottom - top;
      if (seen > best.seen)
        best = { n: p.number, seen, y: (((top + bottom) / 2 - r.top) / r.height) * 100 };
    }
    return best;
  }

  /** Enter, Space or a tap on a palette item: the field goes to the middle of the page in view. */
  function addInView(type) {
    const { n, y } = pageInView();
    const size = pct(n, types[type].defaultSize);
    add(type, n, 50 - size.width / 2, y - size.height / 2);
  }

  /** A press on a palette item: a drag onto a page places the field where it is let go. */
  function pressPalette(event, type, button) {
    if (event.button !== 0) return;
    const start = { x: event.clientX, y: event.clientY };
    let ghost = null;
    const move = (e) => {
      if (!ghost && Math.hypot(e.clientX - start.x, e.clientY - start.y) < DRAG_START_PX) return;
      if (!ghost) {
        const r = pages[0].element.getBoundingClientRect();
        const size = pct(1, types[type].defaultSize);
        ghost = h('div', { class: 'b-ghost', 'aria-hidden': 'true' }, typeName(type));
        ghost.style.width = `${(size.width / 100) * r.width}px`;
        ghost.style.height = `${(size.height / 100) * r.height}px`;
        document.body.append(ghost);
        button.dataset.dragged = 'true';
      }
      ghost.style.left = `${e.clientX - ghost.offsetWidth / 2}px`;
      ghost.style.top = `${e.clientY - ghost.offsetHeight / 2}px`;
    };
    const end = (e) => {
      document.removeEventListener('pointermove', move);
      document.removeEventListener('pointerup', end);
      document.removeEventListener('pointercancel', end);
      if (!ghost) return;
      const w = ghost.offsetWidth;
      const hgt = ghost.offsetHeight;
      ghost.remove();
      if (e.type === 'pointercancel') return;
      const pageEl = document
        .elementsFromPoint(e.clientX, e.clientY)
        .find((el) => el.classList?.contains('page'));
      if (!pageEl) return;
      const r = pageEl.getBoundingClientRect();
      const x = ((e.clientX - w / 2 - r.left) / r.width) * 100;
      const y = ((e.clientY - hgt / 2 - r.top) / r.height) * 100;
      add(type, Number(pageEl.dataset.page), x, y);
    };
    document.addEventListener('pointermove', move);
    document.addEventListener('pointerup', end);
    document.addEventListener('pointercancel', end);
  }

  /** A press on a field: drag to move it, or by its corner handle to resize it. */
  function pressField(event, key) {
    if (event.button !== 0) return;
    const f = find(key);
    const el = elements.get(key);
    if (!f || !el) return;
    event.preventDefault();
    if (state.selected !== key) select(key);
    el.focus({ preventScroll: true });
    const resize = event.target.classList.contains('b-handle');
    const rect = pageOf(f.page).layer.getBoundingClientRect();
    const from = { px: event.clientX, py: event.clientY, x: f.x, y: f.y, w: f.width, h: f.height };
    const min = minOf(f);
    let moved = false;
    el.setPointerCapture(event.pointerId);
    const move = (e) => {
      const dx = ((e.clientX - from.px) / rect.width) * 100;
      const dy = ((e.clientY - from.py) / rect.height) * 100;
      moved = true;
      if (resize) {
        f.width = clamp(from.w + dx, min.width, 100 - f.x);
        f.height = clamp(from.h + dy, min.height, 100 - f.y);
      } else {
        f.x = clamp(from.x + dx, 0, 100 - f.width);
        f.y = clamp(from.y + dy, 0, 100 - f.height);
      }
      place(el, f);
    };
    const end = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', end);
      el.removeEventListener('pointercancel', end);
      if (moved) changed();
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', end);
    el.addEventListener('pointercancel', end);
  }

  /** Remove the field and move the focus to the next one, or to the palette. */
  function remove(key) {
    const i = state.fields.findIndex((f) => f.key === key);
    if (i < 0) return;
    state.fields.splice(i, 1);
    const next = state.fields[i] ?? state.fields[i - 1];
    select(next?.key ?? null, Boolean(next));
    if (!next) document.querySelector('.palette-item')?.focus();
    changed();
    announce(t('builder.removed'));
  }

  function keyOnField(event, key) {
    const f = find(key);
    if (!f) return;
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      remove(key);
    } else if (event.key === 'Escape') select(null);
    else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      select(key);
    } else if (arrows[event.key]) {
      event.preventDefault();
      const [dx, dy] = arrows[event.key].map((d) => d * STEP);
      if (state.selected !== key) select(key);
      if (event.shiftKey) {
        const min = minOf(f);
        f.width = clamp(f.width + dx, min.width, 100 - f.x);
        f.height = clamp(f.height + dy, min.height, 100 - f.y);
      } else {
        f.x = clamp(f.x + dx, 0, 100 - f.width);
        f.y = clamp(f.y + dy, 0, 100 - f.height);
      }
      place(elements.get(key), f);
      changed();
    }
  }

  return { draw, select, remove, addInView, pressPalette };
}
