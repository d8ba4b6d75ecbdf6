import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * Font subsetting with HarfBuzz's hb-subset (the WebAssembly build harfbuzzjs ships beside its
 * shaper). harfbuzzjs wraps only the shaper, so this calls the subsetter's C functions directly.
 * The subset keeps the original glyph ids (a PDF then maps CID = glyph id with no table) and
 * drops what a PDF viewer never reads (layout tables: the text is shaped already), and a variable
 * font is pinned to the weight drawn, so the embedded program is a plain static font.
 */

const FUNCTIONS = [
  'malloc',
  'free',
  'hb_blob_create',
  'hb_blob_destroy',
  'hb_blob_get_data',
  'hb_blob_get_length',
  'hb_face_create',
  'hb_face_destroy',
  'hb_face_reference_blob',
  'hb_set_add',
  'hb_subset_input_create_or_fail',
  'hb_subset_input_destroy',
  'hb_subset_input_glyph_set',
  'hb_subset_input_unicode_set',
  'hb_subset_input_set',
  'hb_subset_input_get_flags',
  'hb_subset_input_set_flags',
  'hb_subset_input_pin_axis_location',
  'hb_subset_input_pin_all_axes_to_default',
  'hb_subset_or_fail',
  '_initialize',
] as const;

/** The C functions used (every argument and result is a number: a pointer, size, tag or flag). */
type SubsetExports = Record<(typeof FUNCTIONS)[number], (...args: number[]) => number> & {
  memory: WebAssembly.Memory;
};

const HB_MEMORY_MODE_READONLY = 1;
const HB_SUBSET_SETS_DROP_TABLE_TAG = 3;
const HB_SUBSET_FLAGS_RETAIN_GIDS = 0x2;
const HB_SUBSET_FLAGS_NO_LAYOUT_CLOSURE = 0x200;

/** Tables a PDF viewer does not read once the text is shaped, and the variation tables left after pinning. */
const DROPPED_TABLES = ['GSUB', 'GPOS', 'GDEF', 'BASE', 'JSTF', 'MATH', 'STAT', 'DSIG', 'meta'];

const tag = (s: string) =>
  ((s.charCodeAt(0) << 24) | (s.charCodeAt(1) << 16) | (s.charCodeAt(2) << 8) | s.charCodeAt(3)) >>>
  0;

const require = createRequire(import.meta.url);
let instance: Promise<SubsetExports> | undefined;

/** The hb-subset module, compiled once per process (its code, not a cache of fonts). */
export function subsetter(): Promise<SubsetExports> {
  instance ??= (async () => {
    const wasm = await readFile(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'));
    const { instance: inst } = await WebAssembly.instantiate(wasm);
    const { memory } = inst.exports;
    if (!(memory instanceof WebAssembly.Memory)) throw new Error('hb-subset exports no memory');
    const api = { memory } as SubsetExports;
    for (const name of FUNCTIONS) {
      const fn = inst.exports[name];
      if (typeof fn !== 'function') throw new Error(`hb-subset lacks ${name}`);
      api[name] = fn as (...args: number[]) => number;
    }
    api._initialize();
    return api;
  })();
  return instance;
}

/**
 * The font reduced to `glyphs` (ids of the font itself, kept as they are), with a variable font
 * pinned at `wght` (or at its defaults). Synchronous once `subsetter()` has resolved.
 */
export function subsetFont(
  api: SubsetExports,
  sfnt: Uint8Array,
  glyphs: Iterable<number>,
  wght: number | null,
): Uint8Array {
  const data = api.malloc(sfnt.byteLength);
  new Uint8Array(api.memory.buffer).set(sfnt, data);
  const blob = api.hb_blob_create(data, sfnt.byteLength, HB_MEMORY_MODE_READONLY, 0, 0);
  const face = api.hb_face_create(blob, 0);
  api.hb_blob_destroy(blob);
  const input = api.hb_subset_input_create_or_fail();
  let result = 0;
  try {
    if (!input) throw new Error('hb-subset could not allocate its input');
    // Only the glyphs asked for: no Unicode-driven closure.
    api.hb_subset_input_unicode_set(input);
    const glyphSet = api.hb_subset_input_glyph_set(input);
    for (const g of glyphs) api.hb_set_add(glyphSet, g);
    const drop = api.hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG);
    for (const t of DROPPED_TABLES) api.hb_set_add(drop, tag(t));
    api.hb_subset_input_set_flags(
      input,
      api.hb_subset_input_get_flags(input) |
        HB_SUBSET_FLAGS_RETAIN_GIDS |
        HB_SUBSET_FLAGS_NO_LAYOUT_CLOSURE,
    );
    // Every axis (width…) at its default, then the weight where it is drawn: no variations left.
    api.hb_subset_input_pin_all_axes_to_default(input, face);
    if (wght !== null && !api.hb_subset_input_pin_axis_location(input, face, tag('wght'), wght))
      throw new Error('the font has no weight axis to pin');
    result = api.hb_subset_or_fail(face, input);
    if (!result) throw new Error('hb-subset failed on a font');
    const out = api.hb_face_reference_blob(result);
    const length = api.hb_blob_get_length(out);
    const ptr = api.hb_blob_get_data(out, 0);
    const bytes = new Uint8Array(api.memory.buffer, ptr, length).slice();
    api.hb_blob_destroy(out);
    return bytes;
  } finally {
    if (input) api.hb_subset_input_destroy(input);
    if (result) api.hb_face_destroy(result);
    api.hb_face_destroy(face);
    api.free(data);
  }
}
