import { escapeHtml, html, renderMailHtml, type MailBrand, type MailContent } from './layout.ts';

/*
 * MJML takes 5-15 ms a mail, far more than anything else in sending one, and a bulk send's
 * invitations all share one look. So the layout is rendered once per organization look (name,
 * colour, logo) and shape of content (which parts it has, how many paragraphs), with a marker in
 * place of each per-mail value; each mail then fills the markers with its values, escaped exactly
 * as the layout escapes them. The markers are plain letters and digits, which MJML passes through
 * untouched; a layout where a marker did not come through whole is not cached (rendered in full
 * every time instead). Switched off with PERF_OFF=mail-layout-cache.
 */

/** Layouts kept at most (one per organization look and content shape in use); the oldest goes first. */
const MAX_LAYOUTS = 500;

const marker = (i: number) => `SIGNETMAILSLOT${i}X`;
const MARKER = /SIGNETMAILSLOT(\d+)X/g;

/**
 * Content with a marker in place of every value, and the values as they must appear in the HTML
 * (escaped as layout.ts escapes them in that place).
 */
function templateOf(
  subject: string,
  content: MailContent,
): { shape: MailContent; subject: string; values: string[]; key: string } {
  const values: string[] = [];
  // MJML leaves out some parts when they are empty (the preview, the title's label): an empty
  // value stays empty in the layout, and which values are empty is part of the shape.
  let empties = '';
  const slot = (value: string, escaped = html(value)) => {
    empties += value === '' ? '1' : '0';
    if (value === '') return '';
    values.push(escaped);
    return marker(values.length - 1);
  };
  const shape: MailContent = {
    // The layout leaves out an empty greeting or code: so does the shape.
    greeting: content.greeting ? slot(content.greeting) : undefined,
    paragraphs: content.paragraphs.map((p) => slot(p)),
    quote: content.quote && { label: slot(content.quote.label), text: slot(content.quote.text) },
    code: content.code ? slot(content.code) : undefined,
    // The URL goes in attributes (escapeHtml) and in text (html); the two differ only for a line
    // break, and a URL with one is rendered in full (renderMailHtmlCached).
    button: content.button && {
      label: slot(content.button.label),
      url: slot(content.button.url, escapeHtml(content.button.url)),
    },
    after: content.after?.map((p) => slot(p)),
  };
  const subjectMarker = slot(subject);
  const key = JSON.stringify([
    !!content.greeting,
    content.paragraphs.length,
    !!content.quote,
    !!content.code,
    !!content.button,
    content.after?.length ?? -1,
    empties,
  ]);
  return { shape, subject: subjectMarker, values, key };
}

/**
 * Whether a mail can be filled into a cached layout. MJML trims the text of an element, so a value
 * with white space at either end may render otherwise than its marker did; and a URL with a line
 * break would be escaped differently in its attribute and in its text. Such a mail (none that
 * Signet writes) is rendered in full.
 */
function fitsLayout(subject: string, content: MailContent): boolean {
  const values = [
    subject,
    content.greeting ?? '',
    ...content.paragraphs,
    content.quote?.label ?? '',
    content.quote?.text ?? '',
    content.code ?? '',
    content.button?.label ?? '',
    content.button?.url ?? '',
    ...(content.after ?? []),
  ];
  return values.every((v) => v === v.trim()) && !/[\r\n]/.test(content.button?.url ?? '');
}

/** One app's layouts (the mail job's, src/jobs/mail-job.ts): two apps in one process share none. */
export class MailLayouts {
  private readonly layouts = new Map<string, { html: string } | { uncacheable: true }>();

  /** How many layouts are kept. */
  get size(): number {
    return this.layouts.size;
  }

  /** renderMailHtml's result, from the layout rendered once for this look and shape of content. */
  async render(subject: string, content: MailContent, brand: MailBrand): Promise<string> {
    const layouts = this.layouts;
    if (!fitsLayout(subject, content)) return renderMailHtml(subject, content, brand);
    const { shape, subject: subjectMarker, values, key: shapeKey } = templateOf(subject, content);
    const key = JSON.stringify([brand.name, brand.brandColor, brand.logoUrl, shapeKey]);
    let layout = layouts.get(key);
    if (!layout) {
      const rendered = await renderMailHtml(subjectMarker, shape, brand);
      // Every marker must have come through whole, in text or attribute alike.
      const seen = new Set([...rendered.matchAll(MARKER)].map((m) => Number(m[1])));
      layout =
        seen.size === values.length && [...seen].every((i) => i < values.length)
          ? { html: rendered }
          : { uncacheable: true };
      if (layouts.size >= MAX_LAYOUTS) layouts.delete(layouts.keys().next().value!);
      layouts.set(key, layout);
    }
    if ('uncacheable' in layout) return renderMailHtml(subject, content, brand);
    // One pass: a value that itself looks like a marker is inserted as it is, never filled again.
    return layout.html.replace(MARKER, (_, i: string) => values[Number(i)]!);
  }
}
