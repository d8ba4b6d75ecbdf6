import { EncryptedPDFError, PDFDocument } from 'pdf-lib';

/**
 * PDFs up to this size are parsed at upload (page count, and proof that the later stamping step
 * can read them). pdf-lib holds the whole file and its object graph in memory, several times the
 * file size, so larger files are stored unparsed and keep a null page count.
 */
export const MAX_PARSED_PDF_BYTES = 10 * 1024 * 1024;

export class UnreadablePdfError extends Error {}

/** The number of pages of a PDF; rejects with `UnreadablePdfError` when it cannot be used. */
export async function countPdfPages(bytes: Uint8Array): Promise<number> {
  let pages: number;
  try {
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    pages = pdf.getPageCount();
  } catch (err) {
    // Signing draws onto the pages and appends a page: impossible without the password.
    if (err instanceof EncryptedPDFError) {
      throw new UnreadablePdfError('The PDF is encrypted (password-protected); remove the protection and upload it again');
    }
    throw new UnreadablePdfError('The file starts like a PDF but cannot be read as one; it may be truncated or corrupt');
  }
  if (pages < 1) throw new UnreadablePdfError('The PDF has no pages');
  return pages;
}
