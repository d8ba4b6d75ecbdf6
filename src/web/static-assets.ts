import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signatureFontAssets } from './signature-fonts.ts';

/**
 * The files the signing page loads, all served by Signet itself (no CDN): our client modules and
 * stylesheet, the script font of typed signatures, and pdf.js with its worker and data files.
 * Only files listed here can be fetched, so a crafted path can never reach the rest of the disk.
 */

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.wasm': 'application/wasm',
  '.bcmap': 'application/octet-stream',
  '.pfb': 'application/octet-stream',
  '.ttf': 'font/ttf',
};

export interface AssetFile {
  body: Buffer;
  type: string;
}

interface PdfjsFile {
  file: string;
  type: string;
}

interface StaticAssets {
  /** Changes whenever any client file changes: part of their URL, so browsers may cache them forever. */
  version: string;
  files: ReadonlyMap<string, AssetFile>;
  /** Typed-signature font slices (`fonts/…`), served from disk under the same versioned path. */
  fontFiles: ReadonlyMap<string, PdfjsFile>;
  pdfjsVersion: string;
  pdfjsFiles: ReadonlyMap<string, PdfjsFile>;
}

const require = createRequire(import.meta.url);
const clientDir = fileURLToPath(new URL('./client/', import.meta.url));

function typeOf(file: string): string | undefined {
  return CONTENT_TYPES[path.extname(file)];
}

function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), `${rel}/`));
    else if (typeOf(entry.name)) out.push(rel);
  }
  return out;
}

/** Reads the client files into memory (they are small) and indexes the pdf.js files on disk (they are not). */
export function loadStaticAssets(): StaticAssets {
  const files = new Map<string, AssetFile>();
  for (const rel of listFiles(clientDir)) {
    files.set(rel, { body: fs.readFileSync(path.join(clientDir, rel)), type: typeOf(rel)! });
  }
  // Typed signatures in the faces the signed PDF uses: their rules join the stylesheet, their
  // Han rule is a module, their font files are served from disk.
  const signature = signatureFontAssets();
  const css = files.get('signing.css');
  if (css) css.body = Buffer.concat([css.body, Buffer.from(signature.css)]);
  files.set('signature-faces.js', {
    body: Buffer.from(signature.script),
    type: CONTENT_TYPES['.js'],
  });
  for (const [name, text] of signature.hanCss)
    files.set(name, { body: Buffer.from(text), type: CONTENT_TYPES['.css'] });
  // ICU MessageFormat in the browser: the library's own self-contained ES module build (no imports).
  const messageFormat = path.join(
    path.dirname(require.resolve('intl-messageformat')),
    'intl-messageformat.iife.js',
  );
  files.set('intl-messageformat.js', {
    body: fs.readFileSync(messageFormat),
    type: CONTENT_TYPES['.js'],
  });
  const fontFiles = new Map<string, PdfjsFile>();
  for (const [name, file] of signature.files) fontFiles.set(name, { file, type: 'font/woff2' });

  const hash = createHash('sha256');
  for (const [name, file] of [...files].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(name).update('\0').update(file.body);
  // Font file names carry their subset; their packages' versions are in the stylesheet's URLs' targets.
  for (const name of [...fontFiles.keys()].sort()) hash.update(name).update('\0');

  const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));
  const pdfjsVersion = (
    JSON.parse(fs.readFileSync(path.join(pdfjsRoot, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const pdfjsFiles = new Map<string, PdfjsFile>();
  for (const name of ['pdf.min.mjs', 'pdf.worker.min.mjs']) {
    pdfjsFiles.set(name, { file: path.join(pdfjsRoot, 'build', name), type: typeOf(name)! });
  }
  // Fonts for PDFs that use the 14 standard fonts without embedding them, CJK character maps, and the
  // WebAssembly decoders of JBIG2 / JPEG 2000 scans and ICC colour profiles.
  for (const dir of ['standard_fonts', 'cmaps', 'wasm']) {
    for (const rel of listFiles(path.join(pdfjsRoot, dir))) {
      pdfjsFiles.set(`${dir}/${rel}`, { file: path.join(pdfjsRoot, dir, rel), type: typeOf(rel)! });
    }
  }
  return { version: hash.digest('hex').slice(0, 12), files, fontFiles, pdfjsVersion, pdfjsFiles };
}
