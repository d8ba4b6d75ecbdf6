/** RFC 5987 `attr-char`: what may appear unescaped in an extended header parameter. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function encodeExtValue(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out +=
      byte < 0x80 && ATTR_CHAR.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * `attachment; filename="…"` or `inline; filename="…"` (RFC 6266), the one way every response
 * names its file. The quoted form is plain ASCII for every client: accents
 * are dropped, other non-ASCII becomes `_`, `"` becomes `'` and `\` becomes `_` (clients disagree
 * on backslash escapes). When that changed the name, the exact name follows as
 * `filename*=UTF-8''…` (RFC 5987), which current browsers prefer.
 */
export function contentDisposition(type: 'attachment' | 'inline', filename: string): string {
  // Control characters have no business in a filename and would break the header; a lone
  // surrogate (possible in JSON text) has no UTF-8 form.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const name = filename.replace(/[\u0000-\u001f\u007f]/g, '').replace(LONE_SURROGATE, '\ufffd');
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\u0020-\u007e]/g, '_')
    .replace(/"/g, "'")
    .replace(/\\/g, '_');
  const header = `${type}; filename="${ascii}"`;
  return ascii === name ? header : `${header}; filename*=UTF-8''${encodeExtValue(name)}`;
}

/** `contentDisposition('attachment', filename)`. */
export const attachmentDisposition = (filename: string) =>
  contentDisposition('attachment', filename);
