import { Canvas, type FontKey, type ObjectFactory } from './content.ts';
import type { FinalizeInput } from './finalize-input.ts';
import { fitText, wrapText } from './text-layout.ts';
import { directionOf, matchLocale } from '../i18n/locales.ts';
import { translator } from '../i18n/messages.ts';
import { formatTimestamp, type Row, signerRows } from './certificate-signer-rows.ts';
import { withoutBidiControls } from './glyph-ops.ts';

/** A4, the certificate's page size whatever the document's. */
export const CERTIFICATE_PAGE_SIZE = { width: 595.28, height: 841.89 } as const;

const MARGIN = 50;
const LABEL_WIDTH = 105;
const FOOTER_SPACE = 40;
/** What the finalizer measured of the document for its certificate page. */
export interface CertificateFacts {
  /** Size of the document's last page, in words ("595 x 842 pt (210 x 297 mm)"). */
  lastPageSize: string;
}

const SIGNATURE_BOX = { w: 180, h: 48 };

/**
 * The audit certificate as page contents (one page, more when the signers do not fit).
 * `signedBy` names the certificate that signs the file, so a reader sees who vouches for it.
 */
export async function buildCertificatePages(
  factory: ObjectFactory,
  input: FinalizeInput,
  signedBy: string,
  facts: CertificateFacts,
): Promise<Canvas[]> {
  const { width, height } = CERTIFICATE_PAGE_SIZE;
  // Labels in the document's locale, times in the organization's time zone (and UTC).
  const locale = matchLocale(input.document.locale) ?? 'en';
  const tr = translator(locale, input.document.timeZone);
  const { t } = tr;
  // Headings read in the locale's direction, whatever script the names in them are written in.
  const direction = directionOf(locale);
  const valueX = MARGIN + LABEL_WIDTH;
  const valueWidth = width - MARGIN - valueX;
  const pages: Canvas[] = [];
  let canvas!: Canvas;
  let y = 0;

  const row = (label: string, value: string, font: FontKey = 'sans', size = 10): Row => ({
    label,
    font,
    size,
    lines: wrapText(factory, font, value || '-', size, valueWidth),
  });
  const rowHeight = (r: Row) => r.lines.length * r.size * 1.3 + 3;
  const drawRow = (r: Row) => {
    canvas.text('sans-bold', 8.5, MARGIN, y - r.size, r.label, 0.35);
    for (const line of r.lines) {
      canvas.text(r.font, r.size, valueX, y - r.size, line);
      y -= r.size * 1.3;
    }
    y -= 3;
  };
  const newPage = () => {
    canvas = new Canvas(factory);
    pages.push(canvas);
    y = height - MARGIN;
    const title = pages.length === 1 ? t('cert.title') : t('cert.titleContinued');
    canvas.text('sans-bold', 20, MARGIN, y - 20, title);
    y -= 34;
    canvas.line(MARGIN, y, width - MARGIN, y, 0.75, 0.6);
    y -= 14;
  };
  const ensure = (needed: number) => {
    if (y - needed < MARGIN + FOOTER_SPACE) newPage();
  };

  const { documentHash, shownHash } = input.document;
  const shown = shownHash && shownHash !== documentHash ? shownHash : null;
  newPage();
  for (const line of wrapText(factory, 'sans', t('cert.intro'), 9, width - 2 * MARGIN)) {
    canvas.text('sans', 9, MARGIN, y - 9, line, 0.25);
    y -= 12;
  }
  y -= 10;

  for (const r of [
    row(t('cert.document'), input.document.name, 'sans-bold', 11),
    row(t('cert.documentId'), input.document.id),
    row(t('cert.completed'), formatTimestamp(input.document.completedAt, tr)),
    row(t('cert.originalHash'), input.document.documentHash, 'mono', 8.5),
    ...(shown ? [row(t('cert.shownHash'), shown, 'mono', 8.5)] : []),
    row(t('cert.lastPageSize'), facts.lastPageSize),
    row(t('cert.signedBy'), signedBy),
    ...(input.document.verifyUrl
      ? [
          row(
            t('cert.verify'),
            t('cert.verifyValue', {
              url: input.document.verifyUrl,
              documentId: input.document.id,
            }),
          ),
        ]
      : []),
  ]) {
    drawRow(r);
  }
  y -= 12;
  canvas.text('sans-bold', 13, MARGIN, y - 13, t('cert.signers', { count: input.signers.length }));
  y -= 24;

  for (const [i, signer] of input.signers.entries()) {
    const rows = signerRows(signer, row, tr);
    const signature = signer.signature ?? '';
    const blockHeight =
      22 +
      rows.reduce((sum, r) => sum + rowHeight(r), 0) +
      12 +
      (signature ? SIGNATURE_BOX.h + 8 : 0);
    // The line reads in the page's direction ("1." left of the name in English, right of it in
    // Arabic); the name is isolated (FSI…PDI), stripped of its own direction controls, so it
    // can neither close that isolate nor pull the number into its run.
    const heading = wrapText(
      factory,
      'sans-bold',
      `${i + 1}. \u2068${withoutBidiControls(signer.name)}\u2069`,
      12,
      width - 2 * MARGIN,
      direction,
    );
    ensure(blockHeight + (heading.length - 1) * 15);
    for (const line of heading) {
      canvas.text('sans-bold', 12, MARGIN, y - 12, line);
      y -= 15;
    }
    y -= 5;
    for (const r of rows) drawRow(r);
    if (signature) {
      canvas.text('sans-bold', 8.5, MARGIN, y - 10, t('cert.signature'), 0.35);
      const box = { x: valueX, y: y - SIGNATURE_BOX.h, w: SIGNATURE_BOX.w, h: SIGNATURE_BOX.h };
      if (signature.startsWith('data:')) {
        const image = await factory.image(signature);
        const scale = Math.min(box.w / image.width, box.h / image.height);
        canvas.image(
          image.ref,
          box.x,
          box.y + (box.h - image.height * scale) / 2,
          image.width * scale,
          image.height * scale,
        );
      } else {
        // Typed: in the face the signing page showed it in, shrunk (then wrapped) to fit.
        const text = signature.replace(/\s+/g, ' ').trim();
        const laid = fitText(factory, 'signature', text, box, { maxSize: 22, floor: 8, pad: 0 });
        const block = laid.lines.length * laid.size * 1.15;
        let baseline = box.y + (box.h + block) / 2 - 0.78 * laid.size;
        for (const line of laid.lines) {
          canvas.text('signature', laid.size, box.x, baseline, line);
          baseline -= laid.size * 1.15;
        }
      }
      canvas.line(valueX, box.y - 2, valueX + box.w, box.y - 2, 0.5, 0.7);
      y -= SIGNATURE_BOX.h + 8;
    }
    y -= 6;
    canvas.line(MARGIN, y, width - MARGIN, y, 0.5, 0.85);
    y -= 12;
  }

  const attachments = input.attachments ?? [];
  if (attachments.length > 0) {
    ensure(40);
    y -= 6;
    canvas.text(
      'sans-bold',
      13,
      MARGIN,
      y - 13,
      t('cert.attachments', { count: attachments.length }),
    );
    y -= 24;
    for (const a of attachments) {
      const rows = [
        row(
          t('cert.file'),
          t('cert.fileValue', { fileName: a.name, contentType: a.contentType, size: a.fileSize }),
        ),
        row(t('cert.attachedBy'), a.signerName || t('cert.unknown')),
        row(t('cert.sha256'), a.sha256, 'mono', 8.5),
      ];
      ensure(rows.reduce((sum, r) => sum + rowHeight(r), 0) + 12);
      for (const r of rows) drawRow(r);
      y -= 8;
    }
  }

  const timeline = input.timeline ?? [];
  if (timeline.length > 0) {
    ensure(40);
    y -= 6;
    canvas.text('sans-bold', 13, MARGIN, y - 13, `${t('cert.timeline')} (UTC)`);
    y -= 24;
    for (const entry of timeline) {
      const where = [entry.ipAddress && t('cert.ip', { ip: entry.ipAddress }), entry.location]
        .filter(Boolean)
        .join(', ');
      const r = row(
        entry.at.slice(0, 19).replace('T', ' '),
        where ? `${entry.event} (${where})` : entry.event,
        'sans',
        9,
      );
      ensure(rowHeight(r));
      drawRow(r);
    }
  }

  pages.forEach((page, i) => {
    page.text(
      'sans',
      8,
      MARGIN,
      MARGIN - 10,
      t('cert.footer', { documentId: input.document.id, page: i + 1, pages: pages.length }),
      0.4,
    );
  });
  return pages;
}
