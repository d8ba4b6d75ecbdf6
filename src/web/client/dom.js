// Small DOM helpers: elements are built with h(), never from HTML strings, so no text from the
// document or the sender can ever become markup.

/**
 * h('button', {class: 'btn', onclick: fn, 'aria-label': 'Close'}, 'Text', childNode)
 * Properties starting with "on" become listeners; `true`/`false` toggle boolean attributes.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'value' || key === 'checked' || key === 'disabled' || key === 'required')
      el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

let uid = 0;
/** A unique id for label/aria wiring. */
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** Reads a message to screen-reader users (polite live region in the shell). */
export function announce(text) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A fresh text node after a tick makes screen readers read a repeated message again.
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** Replaces the content of <main> and moves focus to its first heading, so the change is noticed. */
export function showMain(...children) {
  const main = document.getElementById('main');
  main.replaceChildren(...children);
  main.removeAttribute('aria-busy');
  const heading = main.querySelector('h1, h2');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}

export function visuallyHidden(text) {
  return h('span', { class: 'visually-hidden' }, text);
}

/** The sender's colour for buttons, links and focus; darker and lighter shades derived from it. */
export function applyBrand(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
  if (!m) return;
  const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16));
  const mix = (t, c) => Math.round(c + (t - c) * 0.88);
  const style = document.documentElement.style;
  style.setProperty('--brand', hex);
  style.setProperty(
    '--brand-strong',
    `rgb(${Math.round(r * 0.8)}, ${Math.round(g * 0.8)}, ${Math.round(b * 0.8)})`,
  );
  style.setProperty('--brand-soft', `rgb(${mix(255, r)}, ${mix(255, g)}, ${mix(255, b)})`);
  style.setProperty('--field', `rgba(${r}, ${g}, ${b}, 0.1)`);
  style.setProperty('--field-border', `rgba(${r}, ${g}, ${b}, 0.7)`);
}

/** The sender's logo in place of Signet's name in the top bar, when they have one. */
export function showLogo(url, name) {
  const brand = document.querySelector('.topbar .brand');
  if (!url || !brand) return;
  brand.setAttribute('aria-label', name);
  brand.replaceChildren(h('img', { class: 'brand-logo', src: url, alt: name }));
}
