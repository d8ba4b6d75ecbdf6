import fs from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LOCALE, type Direction, directionOf, type LocaleCode } from './locales.ts';

/**
 * Message catalogs: one JSON file per locale in `catalogs/`, ICU MessageFormat messages keyed alike
 * in every file, English the reference (README "Languages"). Server-side text (mails, the
 * certificate page, the pages' shells) is formatted here; the pages' scripts get their locale's
 * catalog only and format with the same library in the browser.
 */

type Catalog = Readonly<Record<string, string>>;
export type MessageValues = Record<string, string | number | Date>;

const catalogDir = new URL('./catalogs/', import.meta.url);
const catalogs = new Map<LocaleCode, Catalog>();
const compiled = new Map<string, IntlMessageFormat>();

/**
 * The catalog of a locale as written (read once, then kept). A supported locale whose file is not
 * there yet reads as English; test/i18n holds every file that is there to English's keys.
 */
export function catalogOf(locale: LocaleCode): Catalog {
  let catalog = catalogs.get(locale);
  if (!catalog) {
    const file = new URL(`${locale}.json`, catalogDir);
    catalog =
      locale !== DEFAULT_LOCALE && !fs.existsSync(file)
        ? catalogOf(DEFAULT_LOCALE)
        : Object.freeze(JSON.parse(fs.readFileSync(file, 'utf8')) as Catalog);
    catalogs.set(locale, catalog);
  }
  return catalog;
}

export interface Translator {
  locale: LocaleCode;
  dir: Direction;
  timeZone: string;
  /** The message `key` with `values` put in; a key missing from a catalog falls back to English. */
  t(key: string, values?: MessageValues): string;
  /** A date and time in the locale and time zone, e.g. "27 Nov 2026, 14:07". */
  dateTime(iso: string | Date): string;
  /** A date alone in the locale and time zone. */
  date(iso: string | Date): string;
}

function formatter(locale: LocaleCode, key: string): IntlMessageFormat {
  const id = `${locale}\0${key}`;
  let mf = compiled.get(id);
  if (!mf) {
    const own = catalogOf(locale)[key];
    const source = own ?? catalogOf(DEFAULT_LOCALE)[key];
    if (source === undefined) throw new Error(`No message "${key}" in the English catalog`);
    mf = new IntlMessageFormat(source, own === undefined ? DEFAULT_LOCALE : locale);
    compiled.set(id, mf);
  }
  return mf;
}

export function translator(locale: LocaleCode, timeZone = 'UTC'): Translator {
  const dateTimeFormat = new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone,
  });
  const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone });
  const asDate = (v: string | Date) => (v instanceof Date ? v : new Date(v));
  return {
    locale,
    dir: directionOf(locale),
    timeZone,
    t: (key, values) => String(formatter(locale, key).format(values)),
    dateTime: (v) => dateTimeFormat.format(asDate(v)),
    date: (v) => dateFormat.format(asDate(v)),
  };
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
