import { asArray } from './acroform.ts';
import { Canvas, ObjectFactory, type TextSetup } from './content.ts';
import type { FinalizeInput } from './finalize-input.ts';
import type { UpdateObject } from './incremental.ts';
import { type DocumentTree, type PageNode, pageGeometry } from './pages.ts';
import type { PdfFile } from './reader.ts';
import { stampFields } from './stamp.ts';
import {
  dict,
  isDict,
  name,
  type PdfDict,
  PdfRef,
  PdfStream,
  type PdfValue,
  serializeIndirect,
} from './syntax.ts';

/**
 * Fonts are loaded before drawing uses them, and drawing is synchronous; what a document needs
 * is known only by laying it out. So the stamps and certificate are drawn, the font files the
 * text turned out to need are loaded, and it is drawn again: usually twice in all, a third time
 * when a character falls back past its script's face. After `MAX_PASSES` what is still missing
 * is left blank (its text stays in /ActualText).
 */
const MAX_PASSES = 6;

interface DrawnDocument<T> {
  factory: ObjectFactory;
  /** The stamped pages' new versions and their stamp forms. */
  objects: UpdateObject[];
  certPages: T;
}

export async function drawDocument<T>(
  file: PdfFile,
  tree: DocumentTree,
  input: FinalizeInput,
  text: TextSetup,
  certificate: (factory: ObjectFactory) => Promise<T>,
): Promise<DrawnDocument<T>> {
  for (let pass = 1; ; pass++) {
    const factory = new ObjectFactory(file.nextObjectNumber, text);
    const objects: UpdateObject[] = [];
    const put = (ref: PdfRef, value: PdfValue) =>
      objects.push({ ref, bytes: serializeIndirect(ref, value) });
    await stampPages(file, tree, input, factory, put);
    const certPages = await certificate(factory);
    if (factory.missingFonts.size === 0 || pass === MAX_PASSES)
      return { factory, objects, certPages };
    await text.fonts.load(factory.missingFonts);
  }
}

/**
 * For each page with values: a form XObject holding the stamps in display coordinates, and
 * a new version of the page whose content becomes `q <original> Q <stamp>`, so whatever
 * graphics state the original leaves cannot shift or recolour the stamp.
 */
async function stampPages(
  file: PdfFile,
  tree: DocumentTree,
  input: FinalizeInput,
  factory: ObjectFactory,
  put: (ref: PdfRef, value: PdfValue) => void,
): Promise<void> {
  const byPage = new Map<number, typeof input.fields>();
  for (const field of input.fields)
    byPage.set(field.page, [...(byPage.get(field.page) ?? []), field]);

  let saveRef: PdfRef | undefined;
  const drawRefs = new Map<string, PdfRef>();
  for (const pageNumber of [...byPage.keys()].sort((a, b) => a - b)) {
    const page = tree.pages[pageNumber - 1];
    const geometry = pageGeometry(file, page);
    const canvas = new Canvas(factory);
    await stampFields(canvas, factory, geometry, byPage.get(pageNumber) ?? []);
    if (canvas.isEmpty) continue;

    const formRef = factory.alloc();
    put(
      formRef,
      canvas.stream(
        dict({
          Type: name('XObject'),
          Subtype: name('Form'),
          BBox: [0, 0, geometry.width, geometry.height],
          Matrix: geometry.matrix,
          Resources: canvas.resources(),
        }),
      ),
    );
    const { resources, formName } = resourcesWithForm(file, page, formRef);
    if (!saveRef) {
      saveRef = factory.alloc();
      put(saveRef, new PdfStream(new Map(), Buffer.from('q\n')));
    }
    let drawRef = drawRefs.get(formName);
    if (!drawRef) {
      drawRef = factory.alloc();
      put(drawRef, new PdfStream(new Map(), Buffer.from(`\nQ\nq /${formName} Do Q\n`)));
      drawRefs.set(formName, drawRef);
    }
    // /Contents: a stream, an array of streams, or a reference to such an array.
    const contents = page.dict.get('Contents');
    const target = contents instanceof PdfRef ? file.get(contents.num) : undefined;
    const original = Array.isArray(target) ? target : asArray(contents);
    const updated = new Map(page.dict);
    updated.set('Contents', [saveRef, ...original, drawRef]);
    updated.set('Resources', resources);
    put(page.ref, updated);
  }
}

/** The page's resources (own or inherited) copied, with the stamp form added under a free name. */
function resourcesWithForm(
  file: PdfFile,
  page: PageNode,
  formRef: PdfRef,
): { resources: PdfDict; formName: string } {
  const original = file.resolve(page.inherited.Resources);
  const resources: PdfDict = isDict(original) ? new Map(original) : new Map();
  const xobjects = file.resolve(resources.get('XObject'));
  const copy: PdfDict = isDict(xobjects) ? new Map(xobjects) : new Map();
  let formName = 'SgStamp';
  for (let i = 1; copy.has(formName); i++) formName = `SgStamp${i}`;
  copy.set(formName, formRef);
  resources.set('XObject', copy);
  return { resources, formName };
}
