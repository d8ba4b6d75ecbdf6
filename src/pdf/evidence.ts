import type { CertificateFacts } from './certificate-page.ts';
import type { Alloc } from './acroform.ts';
import type { FinalizeInput } from './finalize-input.ts';
import type { PdfFile } from './reader.ts';
import {
  PdfStream,
  dict,
  isDict,
  name,
  pdfText,
  type PdfDict,
  type PdfRef,
  type PdfValue,
} from './syntax.ts';
import { pdfDate } from './sign.ts';

/**
 * The certificate page's content as JSON, attached inside the signed PDF (an embedded file
 * with /AFRelationship /Data, PDF 2.0 / PDF/A-3 style) so the evidence travels with the file
 * and machines need not read the page's text.
 */

export const EVIDENCE_FILE_NAME = 'signet-evidence.json';

export function evidenceJson(
  input: FinalizeInput,
  signedBy: string,
  facts: CertificateFacts,
): Buffer {
  const evidence = {
    format: 'signet-evidence/1',
    document: {
      id: input.document.id,
      name: input.document.name,
      completedAt: input.document.completedAt,
      originalSha256: input.document.documentHash,
      ...(input.document.shownHash && input.document.shownHash !== input.document.documentHash
        ? { shownSha256: input.document.shownHash }
        : {}),
      lastPageSize: facts.lastPageSize,
      verifyUrl: input.document.verifyUrl ?? null,
    },
    digitallySignedBy: signedBy,
    signers: input.signers.map((s) => ({
      name: s.name,
      email: s.email,
      role: s.role,
      signedAt: s.signedAt,
      ipAddress: s.ipAddress,
      location: [s.geoCity, s.geoCountry].filter(Boolean).join(', '),
      userAgent: s.userAgent,
      authentication: s.authentication ?? null,
      ...(s.otpPhone ? { otpPhone: s.otpPhone } : {}),
      signature: s.signature ?? null,
    })),
    attachments: (input.attachments ?? []).map((a) => ({ ...a })),
    timeline: (input.timeline ?? []).map((e) => ({ ...e })),
  };
  return Buffer.from(`${JSON.stringify(evidence, null, 2)}\n`, 'utf8');
}

/**
 * Adds the JSON to `catalog` (a copy the caller writes): the embedded file stream, its file
 * specification, an entry in /Names /EmbeddedFiles and in the catalog's /AF.
 */
export function embedEvidence(
  file: PdfFile,
  catalog: PdfDict,
  json: Buffer,
  modified: string,
  factory: Alloc,
  put: (ref: PdfRef, value: PdfValue) => void,
): void {
  const streamRef = factory.alloc();
  put(
    streamRef,
    new PdfStream(
      dict({
        Type: name('EmbeddedFile'),
        Subtype: name('application#2Fjson'),
        Params: dict({ Size: json.length, ModDate: pdfText(pdfDate(modified)) }),
      }),
      json,
    ),
  );
  const specRef = factory.alloc();
  put(
    specRef,
    dict({
      Type: name('Filespec'),
      F: pdfText(EVIDENCE_FILE_NAME),
      UF: pdfText(EVIDENCE_FILE_NAME),
      Desc: pdfText('Signet certificate of completion (machine-readable)'),
      AFRelationship: name('Data'),
      EF: dict({ F: streamRef, UF: streamRef }),
    }),
  );

  const namesValue = file.resolve(catalog.get('Names'));
  const names: PdfDict = isDict(namesValue) ? new Map(namesValue) : new Map();
  const treeValue = file.resolve(names.get('EmbeddedFiles'));
  const tree: PdfDict = isDict(treeValue) ? new Map(treeValue) : new Map();
  const leaf = file.resolve(tree.get('Names'));
  const kids = file.resolve(tree.get('Kids'));
  if (Array.isArray(kids)) {
    // A tree with intermediate nodes: ours becomes one more leaf (a reader searching by name checks its /Limits).
    const leafRef = factory.alloc();
    put(
      leafRef,
      dict({
        Names: [pdfText(EVIDENCE_FILE_NAME), specRef],
        Limits: [pdfText(EVIDENCE_FILE_NAME), pdfText(EVIDENCE_FILE_NAME)],
      }),
    );
    tree.set('Kids', [...kids, leafRef]);
  } else {
    tree.set('Names', [...(Array.isArray(leaf) ? leaf : []), pdfText(EVIDENCE_FILE_NAME), specRef]);
  }
  names.set('EmbeddedFiles', tree);
  catalog.set('Names', names);
  const af = file.resolve(catalog.get('AF'));
  catalog.set('AF', [...(Array.isArray(af) ? af : []), specRef]);
}
