import fs from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';

/*
 * Every catalog says everything English says, no more, with the same placeholders (name and kind),
 * and is a translation: a catalog repeating English for more than 5% of its keys fails.
 */

const dir = new URL('../../src/i18n/catalogs/', import.meta.url);
const read = (file: string) =>
  JSON.parse(fs.readFileSync(new URL(file, dir), 'utf8')) as Record<string, string>;
const en = read('en.json');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
const others = files.filter((f) => f !== 'en.json');

/** `name:kind` of every argument of a message, plural/select branches included. */
function placeholders(message: string): string[] {
  const out = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.argument) out.add(`${el.value}:text`);
      else if (el.type === TYPE.number) out.add(`${el.value}:number`);
      else if (el.type === TYPE.date || el.type === TYPE.time) out.add(`${el.value}:date`);
      else if (el.type === TYPE.plural || el.type === TYPE.select) {
        out.add(`${el.value}:${el.type === TYPE.plural ? 'plural' : 'select'}`);
        for (const option of Object.values(el.options)) walk(option.value);
      } else if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(parse(message, { ignoreTag: true }));
  return [...out].sort();
}

/** Words that stay the same in every language (names of formats, products and algorithms). */
const UNTRANSLATED_WORDS =
  /\b(PDF|PAdES|SHA-256|Signet|PNG|JPEG|WebP|KB|MB|IP|B-B|B-T|B-LT|B-LTA)\b/g;
/** A message with nothing to translate once placeholders and such names are taken out. */
const nothingToTranslate = (message: string) =>
  !/\p{L}{2,}/u.test(message.replace(/\{[^{}]*\}/g, '').replace(UNTRANSLATED_WORDS, ''));

describe('message catalogs', () => {
  it('has a file for English and only files of supported locales', () => {
    expect(files).toContain('en.json');
    for (const f of files) expect(LOCALE_CODES).toContain(f.replace(/\.json$/, ''));
  });

  it('parses every English message', () => {
    for (const [key, message] of Object.entries(en))
      expect(() => placeholders(message), key).not.toThrow();
  });

  describe.each(others)('%s', (file) => {
    const catalog = read(file);

    it('has exactly the keys of English', () => {
      const keys = Object.keys(catalog);
      expect(
        Object.keys(en).filter((k) => !(k in catalog)),
        'missing',
      ).toEqual([]);
      expect(
        keys.filter((k) => !(k in en)),
        'extra',
      ).toEqual([]);
    });

    it('uses the placeholders of English in every message', () => {
      for (const [key, message] of Object.entries(catalog)) {
        if (!(key in en)) continue;
        expect(typeof message, key).toBe('string');
        expect(placeholders(message), `${file} ${key}`).toEqual(placeholders(en[key]));
      }
    });

    it('translates: at most 5% of the messages repeat English', () => {
      const translatable = Object.keys(en).filter((k) => !nothingToTranslate(en[k]));
      const same = translatable.filter((k) => catalog[k] === en[k]);
      expect(
        same.length / translatable.length,
        `same as English: ${same.join(', ')}`,
      ).toBeLessThanOrEqual(0.05);
    });
  });
});
