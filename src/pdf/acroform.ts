import type { ObjectFactory } from './content.ts';
import type { DocumentTree } from './pages.ts';
import type { PdfFile } from './reader.ts';
import { PdfRef, isDict, type PdfDict, type PdfValue } from './syntax.ts';

/** Allocates object numbers (the factory of the finalizer, or a plain counter for later updates). */
export type Alloc = Pick<ObjectFactory, 'alloc'>;

/** Registers the signature field in the AcroForm (created when the document has none). */
export function addToAcroForm(
  file: PdfFile,
  tree: DocumentTree,
  widgetRef: PdfRef,
  factory: Alloc,
  put: (ref: PdfRef, value: PdfValue) => void,
  /** The caller's copy of the catalog to register a new AcroForm in (the caller writes it); else written here. */
  catalogCopy?: PdfDict,
): void {
  const current = tree.catalog.get('AcroForm');
  const resolved = file.resolve(current);
  const acroForm: PdfDict = isDict(resolved) ? new Map(resolved) : new Map();
  acroForm.set('Fields', [...asArray(file.resolve(acroForm.get('Fields'))), widgetRef]);
  const flags = file.resolve(acroForm.get('SigFlags'));
  acroForm.set('SigFlags', (typeof flags === 'number' ? flags : 0) | 3); // SignaturesExist | AppendOnly
  if (current instanceof PdfRef) {
    put(current, acroForm);
    return;
  }
  const ref = factory.alloc();
  put(ref, acroForm);
  const catalog = catalogCopy ?? new Map(tree.catalog);
  catalog.set('AcroForm', ref);
  if (!catalogCopy) put(tree.catalogRef, catalog);
}

export function asArray(v: PdfValue | undefined): PdfValue[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
