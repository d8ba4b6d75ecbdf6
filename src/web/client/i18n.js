// The page's words: its own locale's catalog, carried by the page in a JSON block (only that
// locale's), formatted with ICU MessageFormat by intl-messageformat (its self-contained browser
// build, served by Signet like every client file).

import { IntlMessageFormat } from './intl-messageformat.js';

const block = document.getElementById('signet-messages');
const messages = block ? JSON.parse(block.textContent ?? '{}') : {};
/** The page's locale (`<html lang>`), e.g. "de" or "zh-Hant". */
export const locale = document.documentElement.lang || 'en';
const formats = new Map();

/** The message `key` with `values` put in; the key itself when the catalog lacks it. */
export function t(key, values) {
  const source = messages[key];
  if (source === undefined) return key;
  let mf = formats.get(key);
  if (!mf) {
    mf = new IntlMessageFormat(source, locale);
    formats.set(key, mf);
  }
  return String(mf.format(values));
}

/** A date in the page's locale ("27 Nov 2026"). */
export const formatDate = (value) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(value));
/** A time of day in the page's locale. */
export const formatTime = (value) =>
  new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(new Date(value));
/** A date and time in the page's locale. */
export const formatDateTime = (value) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(value),
  );

/**
 * The message `key` as a list of strings and nodes: values that are DOM nodes (a name in
 * `<strong>`, an isolated `<bdi>`) take their placeholder's place.
 */
export function tNodes(key, values = {}) {
  const nodes = [];
  const marked = {};
  for (const [name, value] of Object.entries(values)) {
    if (value instanceof Node) {
      marked[name] = `\uE000${nodes.length}\uE001`;
      nodes.push(value);
    } else marked[name] = value;
  }
  return t(key, marked)
    .split(/(\uE000\d+\uE001)/)
    .filter(Boolean)
    .map((part) => {
      const m = /^\uE000(\d+)\uE001$/.exec(part);
      return m ? nodes[Number(m[1])] : part;
    });
}
