// @ts-check
/*
 * Builds src/ (TypeScript) into dist/ (JavaScript), which is what `npm start`, the CLI and the
 * container image run: compiling on every start cost seconds, a build costs a fraction of one.
 *
 * esbuild rather than tsc: both emit one .js file per .ts file, but esbuild does it in about
 * 0.3 s where tsc takes about 10 s (it loads the type libraries even with --noCheck), and the
 * CLI rebuilds on its way in whenever the sources changed. Type checking is `npm run typecheck`.
 *
 * `node scripts/build.js` builds when dist/ is older than the sources (`--force`: always);
 * `npm install` runs it (the `prepare` script), and bin/signet.js calls `buildIfStale` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.build.json');
/** Besides src/, what changes the output: this script and the compiler settings esbuild reads. */
const INPUTS = ['scripts/build.js', 'tsconfig.json'].map((f) => path.join(ROOT, f));

/** Every file under src/ (relative, sorted) with the newest modification time among them and INPUTS. */
function scanSources() {
  const files = /** @type {string[]} */ (fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }))
    .filter((f) => fs.statSync(path.join(SRC, f)).isFile())
    .sort();
  let newest = 0;
  for (const f of [...files.map((f) => path.join(SRC, f)), ...INPUTS]) {
    const m = fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (m > newest) newest = m;
  }
  return { files, newest };
}

/**
 * Whether dist/ must be (re)built: no build yet, a source file changed, added or removed since
 * it, or a build input changed. About 300 stat calls: a few milliseconds.
 */
export function isStale() {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return true;
  }
  const { files, newest } = scanSources();
  return newest > stamp.startedAt || files.join('\n') !== stamp.files.join('\n');
}

/** Writes a file by renaming a finished copy over it, so a process reading dist/ never sees half a file. */
function writeAtomic(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

/** Every file under dir, relative to it. */
function listFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return /** @type {string[]} */ (
    fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
  ).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

/**
 * Builds dist/: each src/**\/*.ts to a .js file with its relative imports renamed from .ts to
 * .js (the sources import with .ts extensions, which Node runs only through a loader), every
 * other file under src/ (the signing page's scripts, styles and icon) copied as it is, and files
 * whose source is gone removed. Files are replaced one by one, atomically: a server running
 * from dist/ meanwhile keeps loading whole files.
 * @returns {Promise<number>} milliseconds taken
 */
export async function build() {
  const started = Date.now();
  const { files } = scanSources();
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(
      'dist/ must be built from src/, and the build needs the development dependencies: run npm install (without --omit=dev)',
    );
  }
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: files.filter((f) => f.endsWith('.ts')).map((f) => path.join('src', f)),
    outbase: 'src',
    outdir: 'dist',
    // Bundling only to rename imports: the plugin below keeps every import as an import.
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'one-file-per-file',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'entry-point'
              ? undefined
              : { path: args.path.replace(/\.ts$/, '.js'), external: true },
          );
        },
      },
    ],
  });
  const written = new Set();
  for (const out of result.outputFiles) {
    writeAtomic(out.path, out.contents);
    written.add(path.relative(DIST, out.path));
  }
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    writeAtomic(path.join(DIST, f), fs.readFileSync(path.join(SRC, f)));
    written.add(f);
  }
  for (const f of listFiles(DIST)) {
    if (!written.has(f) && !f.endsWith('.tmp') && f !== path.basename(STAMP))
      fs.rmSync(path.join(DIST, f));
  }
  writeAtomic(STAMP, JSON.stringify({ startedAt: started, files }));
  return Date.now() - started;
}

/** Builds when `isStale()`, saying so on stderr (stdout is the command's own output). */
export async function buildIfStale() {
  if (!isStale()) return;
  const ms = await build();
  process.stderr.write(`signet: built dist/ from src/ (${ms} ms)\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const force = process.argv.includes('--force');
  const run = force || isStale() ? build().then((ms) => `built dist/ in ${ms} ms`) : null;
  Promise.resolve(run ?? 'dist/ is up to date').then(
    (message) => process.stdout.write(`${message}\n`),
    (err) => {
      process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
