/**
 * One look for every mail Signet sends: the organization's name or logo on top, a white card with
 * a strip of its colour, the text, one button, the link spelled out under it, and a footer. The
 * HTML comes from MJML (responsive, table-based markup mail clients render, no browser needed);
 * the plain-text part is written alongside, with each link alone on its line.
 */

import { DEFAULT_LOCALE, type LocaleCode } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';

/** What a mail says; the layout decides how it looks. */
export interface MailContent {
  /** "Hello Ada," */
  greeting?: string;
  /** Paragraphs before the button. */
  paragraphs: string[];
  /** A message quoted from the sender. */
  quote?: { label: string; text: string };
  /** A one-time code, shown large in the HTML part (the text part has it in its sentence). */
  code?: string;
  /** The one action of the mail. */
  button?: { label: string; url: string };
  /** Paragraphs after the button. */
  after?: string[];
  /** The recipient's locale (the layout's own words and direction); English when absent. */
  locale?: LocaleCode;
}

/** Who the mail is from, as signers know them (organization.service.ts's OrgBrand). */
export interface MailBrand {
  name: string;
  brandColor: string | null;
  logoUrl: string | null;
}

/** Signet's own accent colour, for organizations without one. */
const DEFAULT_MAIL_COLOR = '#4338CA';

export const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
/** Text in the HTML part: escaped, line breaks kept. */
export const html = (s: string) => escapeHtml(s).replace(/\n/g, '<br />');

/** Colour of text on the button: white on dark colours, near-black on light ones (WCAG relative luminance). */
function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! > 0.45 ? '#111827' : '#FFFFFF';
}

function mjml(subject: string, content: MailContent, brand: MailBrand): string {
  const color = brand.brandColor ?? DEFAULT_MAIL_COLOR;
  const { t, dir, locale } = translator(content.locale ?? DEFAULT_LOCALE);
  const start = dir === 'rtl' ? 'right' : 'left';
  const text = (s: string, attrs = '') => `<mj-text${attrs}>${html(s)}</mj-text>`;
  const header = brand.logoUrl
    ? `<mj-image src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(brand.name)}" width="140px" align="${start}" padding="0" />`
    : `<mj-text font-size="20px" font-weight="700" color="${color}" align="${start}" padding="0">${html(brand.name)}</mj-text>`;
  const body = [
    content.greeting ? text(content.greeting) : '',
    ...content.paragraphs.map((p) => text(p)),
    content.quote
      ? `<mj-text><div style="border-${start}:3px solid ${color};background:#F9FAFB;padding:10px 14px;border-radius:${dir === 'rtl' ? '6px 0 0 6px' : '0 6px 6px 0'}">` +
        `<div style="font-size:13px;color:#6B7280;margin-bottom:4px">${html(content.quote.label)}</div><div dir="auto">${html(content.quote.text)}</div></div></mj-text>`
      : '',
    content.code
      ? text(
          content.code,
          ' align="center" font-size="34px" font-weight="700" letter-spacing="8px" padding="16px 0"',
        )
      : '',
    content.button
      ? `<mj-button href="${escapeHtml(content.button.url)}" background-color="${color}" color="${textOn(color)}" font-size="16px" font-weight="600" border-radius="6px" inner-padding="14px 32px" padding="20px 0 8px" align="${start}">${html(content.button.label)}</mj-button>` +
        `<mj-text font-size="13px" color="#6B7280">${html(t('mail.buttonFallback'))}<br /><a href="${escapeHtml(content.button.url)}" dir="ltr" style="color:${color};word-break:break-all">${html(content.button.url)}</a></mj-text>`
      : '',
    ...(content.after ?? []).map((p) => text(p)),
  ].join('\n');
  return `<mjml lang="${locale}" dir="${dir}">
  <mj-head>
    <mj-title>${html(subject)}</mj-title>
    <mj-preview>${html(content.paragraphs[0] ?? subject)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" />
      <mj-section direction="${dir}" />
      <mj-column direction="${dir}" />
      <mj-text font-size="15px" line-height="1.6" color="#1F2937" padding="6px 0" align="${start}" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#F3F4F6" width="600px">
    <mj-section padding="28px 24px 14px"><mj-column>${header}</mj-column></mj-section>
    <mj-section background-color="#FFFFFF" border-top="4px solid ${color}" border-radius="8px" padding="24px 28px">
      <mj-column>
${body}
      </mj-column>
    </mj-section>
    <mj-section padding="14px 24px 28px"><mj-column>
      <mj-text font-size="12px" color="#9CA3AF" align="center">${html(t('mail.footer', { orgName: brand.name }))}</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;
}

/** Renders the HTML part. MJML is loaded on first use: the server and CLI start without it. */
export async function renderMailHtml(
  subject: string,
  content: MailContent,
  brand: MailBrand,
): Promise<string> {
  const { default: mjml2html } = await import('mjml');
  const { html: out, errors } = await mjml2html(mjml(subject, content, brand), {
    validationLevel: 'strict',
  });
  if (errors.length > 0)
    throw new Error(`mail layout: ${errors.map((e) => e.formattedMessage).join('; ')}`);
  return out;
}

/**
 * Loads MJML and renders one mail, so the first real mail does not stall the event loop while
 * MJML's modules load (0.3-0.8 s on this project's machines). The server calls it before it
 * starts its jobs; the CLI and tests never pay it.
 */
export async function warmMailLayout(): Promise<void> {
  await renderMailHtml(
    'Signet',
    { paragraphs: ['Ready.'] },
    { name: 'Signet', brandColor: null, logoUrl: null },
  );
}

/**
 * The plain-text part. Every link sits alone on its line: mail programs wrap prose as they like
 * without cutting a link, and quoted-printable (which folds lines over 76 characters with soft
 * breaks) leaves a link shorter than that whole even in the raw message (a spooled .eml).
 */
export function renderMailText(content: MailContent, brandName: string): string {
  const blocks = [
    content.greeting ?? '',
    ...content.paragraphs,
    content.quote
      ? `${content.quote.label}\n${content.quote.text
          .split('\n')
          .map((l) => `> ${l}`)
          .join('\n')}`
      : '',
    content.button ? `${content.button.label}:\n${content.button.url}` : '',
    ...(content.after ?? []),
  ].filter(Boolean);
  const { t } = translator(content.locale ?? DEFAULT_LOCALE);
  return `${blocks.join('\n\n')}\n\n-- \n${t('mail.footer', { orgName: brandName })}\n`;
}
