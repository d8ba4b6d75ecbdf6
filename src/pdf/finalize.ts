import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FontCache } from '../fonts/font-cache.ts';
import { certificateLabel, type SigningCertificate } from './certificate.ts';
import { CERTIFICATE_PAGE_SIZE, buildCertificatePages } from './certificate-page.ts';
import { drawDocument } from './draw-document.ts';
import { assembleUpdate } from './incremental.ts';
import { pageGeometry, readDocumentTree } from './pages.ts';
import { PdfFile } from './reader.ts';
import { loadWithPdfLib, REPAIR_LIMIT_BYTES } from './pdf-lib-guard.ts';
import { signatureSlot, writeSigned } from './sign.ts';
import { buildCms } from './cms.ts';
import type { TimestampInfo } from './cms-parse.ts';
import { TIMESTAMP_RESERVE, levelAtLeast, type LongTermConfig } from './long-term.ts';
import { extendLevel, stampWith, type FinalizeResult } from './levels.ts';
import type { FinalizeInput } from './finalize-input.ts';
import { addToAcroForm, asArray } from './acroform.ts';
import { embedEvidence, evidenceJson } from './evidence.ts';
import {
  PdfRaw,
  PdfSyntaxError,
  dict,
  name,
  pdfText,
  serializeIndirect,
  type PdfRef,
  type PdfValue,
} from './syntax.ts';

export type { FinalizeField, FinalizeInput } from './finalize-input.ts';

export type { FinalizeResult } from './levels.ts';

/**
 * Produces the signed PDF: field values stamped on their pages, the audit certificate
 * appended, and a PAdES B-B signature over the whole file, all as one incremental update
 * after the untouched original bytes. Memory stays flat whatever the file size. The same
 * input and RSA certificate give the same bytes, so a retried job reproduces its file.
 * Writes to `outputPath`; returns the output's SHA-256 hex and size. `fonts` is the process's
 * font cache (its owner keeps it from one sealing to the next; a fresh one loads what it needs).
 */
export async function finalizePdf(
  input: FinalizeInput,
  cert: SigningCertificate,
  outputPath: string,
  longTerm: LongTermConfig = { level: 'B-B', tsa: null },
  fonts: FontCache = new FontCache(),
): Promise<FinalizeResult> {
  // Opening the output truncates it: it must not be the file being read.
  if (path.resolve(outputPath) === path.resolve(input.sourcePath))
    throw new Error('outputPath must differ from sourcePath');
  if (levelAtLeast(longTerm.level, 'B-T') && !longTerm.tsa)
    throw new Error(`PAdES ${longTerm.level} needs a TSA_URL`);
  const stamps: TimestampInfo[] = [];
  const timestamper =
    longTerm.tsa && levelAtLeast(longTerm.level, 'B-T')
      ? stampWith(longTerm.tsa, stamps)
      : undefined;
  let signed: { sha256: string; size: number };
  try {
    signed = await finalizeFrom(input.sourcePath, input, cert, outputPath, timestamper, fonts);
  } catch (err) {
    // A file Signet's reader cannot parse (broken xref offsets and the like) is rebuilt by pdf-lib
    // from its objects, within REPAIR_LIMIT_BYTES, and then signed.
    if (
      !(err instanceof PdfSyntaxError) ||
      (await stat(input.sourcePath)).size > REPAIR_LIMIT_BYTES
    )
      throw err;
    const repaired = `${outputPath}.repaired-${randomBytes(4).toString('hex')}.pdf`;
    try {
      const doc = await loadWithPdfLib(await readFile(input.sourcePath));
      await writeFile(
        repaired,
        await doc.save({ useObjectStreams: false, updateFieldAppearances: false }),
      );
      stamps.length = 0;
      signed = await finalizeFrom(repaired, input, cert, outputPath, timestamper, fonts);
    } finally {
      await rm(repaired, { force: true });
    }
  }
  return {
    ...(await extendLevel(outputPath, cert, longTerm, stamps, signed)),
    level: longTerm.level,
  };
}

async function finalizeFrom(
  sourcePath: string,
  input: FinalizeInput,
  cert: SigningCertificate,
  outputPath: string,
  timestamper: ((signature: Buffer) => Promise<Buffer[]>) | undefined,
  fonts: FontCache,
): Promise<{ sha256: string; size: number }> {
  const file = PdfFile.open(sourcePath);
  try {
    const tree = readDocumentTree(file);
    for (const field of input.fields) {
      if (!Number.isInteger(field.page) || field.page < 1 || field.page > tree.pages.length) {
        throw new Error(
          `a field is on page ${field.page}, but the document has ${tree.pages.length} pages`,
        );
      }
    }
    const last = pageGeometry(file, tree.pages[tree.pages.length - 1]);
    const facts = { lastPageSize: describeSize(last.width, last.height) };
    const { factory, objects, certPages } = await drawDocument(
      file,
      tree,
      input,
      { fonts, locale: input.document.locale },
      (f) => buildCertificatePages(f, input, certificateLabel(cert), facts),
    );
    const put = (ref: PdfRef, value: PdfValue) =>
      objects.push({ ref, bytes: serializeIndirect(ref, value) });
    const widgetRef = factory.alloc();
    const sigRef = factory.alloc();
    const certPageRefs = certPages.map((canvas, i) => {
      const contentRef = factory.alloc();
      put(contentRef, canvas.stream());
      const pageRef = factory.alloc();
      const box = [0, 0, CERTIFICATE_PAGE_SIZE.width, CERTIFICATE_PAGE_SIZE.height];
      // Every inheritable attribute is set, so nothing from the document's tree leaks in.
      put(
        pageRef,
        dict({
          Type: name('Page'),
          Parent: tree.pagesRef,
          MediaBox: box,
          CropBox: box,
          Rotate: 0,
          Resources: canvas.resources(),
          Contents: contentRef,
          Annots: i === 0 ? [widgetRef] : undefined,
        }),
      );
      return pageRef;
    });

    const pagesRoot = new Map(tree.pagesRoot);
    pagesRoot.set('Kids', [...asArray(file.resolve(tree.pagesRoot.get('Kids'))), ...certPageRefs]);
    pagesRoot.set('Count', tree.pages.length + certPageRefs.length);
    put(tree.pagesRef, pagesRoot);

    const catalog = new Map(tree.catalog);
    addToAcroForm(file, tree, widgetRef, factory, put, catalog);
    embedEvidence(
      file,
      catalog,
      evidenceJson(input, certificateLabel(cert), facts),
      input.document.completedAt,
      factory,
      put,
    );
    put(tree.catalogRef, catalog);
    // An invisible signature field on the certificate page; the signature covers the whole file.
    put(
      widgetRef,
      dict({
        Type: name('Annot'),
        Subtype: name('Widget'),
        FT: name('Sig'),
        T: pdfText(`Signet ${input.document.id}`),
        V: sigRef,
        F: 132, // Print + Locked
        Rect: [0, 0, 0, 0],
        P: certPageRefs[0],
      }),
    );

    for (const font of await factory.fontObjects())
      objects.push({ ref: font.ref, bytes: serializeIndirect(font.ref, font.value) });
    objects.push(...factory.libraryObjects());
    const names = input.signers.map((s) => s.name).join(', ');
    const slot = signatureSlot(
      sigRef,
      cert,
      {
        signingTime: input.document.completedAt,
        name: certificateLabel(cert),
        reason: `Signed by ${names.length > 400 ? `${names.slice(0, 397)}...` : names} via Signet`,
      },
      timestamper ? TIMESTAMP_RESERVE : 0,
    );
    // Last, so the bytes after /Contents (the second ByteRange) are only a few hundred.
    objects.push({ ref: sigRef, bytes: slot.bytes });

    const update = assembleUpdate(file, objects, {
      id: documentId(file, input),
      allocXrefStream: () => factory.alloc(),
    });
    return await writeSigned(file, update, slot, outputPath, (digest) =>
      buildCms(digest, cert, timestamper),
    );
  } finally {
    file.close();
  }
}

/** "595 x 842 pt (210 x 297 mm)". */
function describeSize(width: number, height: number): string {
  const mm = (pt: number) => Math.round((pt * 25.4) / 72);
  return `${Math.round(width)} x ${Math.round(height)} pt (${mm(width)} x ${mm(height)} mm)`;
}

/** Keeps the original's permanent identifier; the changing half is derived from the input, not random. */
function documentId(file: PdfFile, input: FinalizeInput): PdfValue {
  const { documentHash, id: documentIdentifier, completedAt } = input.document;
  const seed = `${documentHash}\n${documentIdentifier}\n${completedAt}`;
  const changing = new PdfRaw(`<${createHash('sha256').update(seed).digest('hex').slice(0, 32)}>`);
  const id = file.resolve(file.trailer.get('ID'));
  const permanent = Array.isArray(id) && id[0] instanceof PdfRaw ? id[0] : changing;
  return [permanent, changing];
}
