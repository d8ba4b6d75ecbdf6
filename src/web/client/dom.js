// Small DOM helpers: elements are built with h(), never from HTML strings, so no text from the
// document or the sender can ever become markup.

import { brandPalette } from './brand-colors.js';

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

/** The sender's colour for buttons, links and focus, with the shades and ink derived from it. */
export function applyBrand(hex) {
  const palette = brandPalette(hex);
  if (!palette) return;
  const style = document.documentElement.style;
  for (const [name, value] of Object.entries(palette)) style.setProperty(name, value);
}

/** The sender's logo in place of Signet's name in the top bar, when they have one. */
export function showLogo(url, name) {
  const brand = document.querySelector('.topbar .brand');
  if (!url || !brand) return;
  brand.setAttribute('aria-label', name);
  brand.replaceChildren(h('img', { class: 'brand-logo', src: url, alt: name }));
}
