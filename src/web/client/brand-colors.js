// The colours the pages derive from an organization's brandColor, so that any colour it picks
// keeps text readable (WCAG 2.1 contrast, 4.5:1 for text): the ink on its buttons is black or
// white, whichever contrasts more, and text drawn in the brand colour on the light page is
// darkened until it reaches 4.5:1.

/** WCAG 2 relative luminance of [r, g, b] (0–255). */
export function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The contrast ratio of two colours, from 1 to 21. */
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];
/** The page background (--bg in signing.css), the darkest surface brand-coloured text sits on. */
const PAGE = [241, 243, 247];
const TEXT_RATIO = 4.5;

const mix = (from, to, share) => from.map((c, i) => Math.round(c + (to[i] - c) * share));
export const rgb = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;

/** The black or white text with the better contrast on `brand`. */
export const inkOn = (brand) => (contrast(brand, BLACK) > contrast(brand, WHITE) ? BLACK : WHITE);

/**
 * `brand` as a text colour on the light page: itself when it already reads at 4.5:1 there (and on
 * its own 10 % tint, which field boxes use), else darkened step by step until it does.
 */
export function textColour(brand) {
  const tint = mix(PAGE, brand, 0.12);
  let colour = brand;
  for (let k = 1; k > 0; k -= 0.05) {
    colour = brand.map((c) => Math.round(c * k));
    if (Math.min(contrast(colour, PAGE), contrast(colour, tint)) >= TEXT_RATIO) return colour;
  }
  return BLACK;
}

/** Every colour the stylesheet reads, for `#rrggbb` (null for anything else). */
export function brandPalette(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
  if (!m) return null;
  const brand = m.slice(1).map((x) => Number.parseInt(x, 16));
  const ink = inkOn(brand);
  const text = textColour(brand);
  const [r, g, b] = brand;
  return {
    '--brand': hex,
    '--brand-ink': rgb(ink),
    // Hover moves away from the ink, so the button's text stays as readable as at rest.
    '--brand-hover': rgb(ink === WHITE ? mix(brand, BLACK, 0.2) : mix(brand, WHITE, 0.25)),
    '--brand-text': rgb(text),
    '--brand-soft': rgb(mix(brand, WHITE, 0.88)),
    '--field': `rgba(${r}, ${g}, ${b}, 0.1)`,
    // A field's outline in the darker text shade, so a light brand's boxes stay visible.
    '--field-border': `rgba(${text.join(', ')}, 0.7)`,
  };
}
