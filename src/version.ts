import fs from 'node:fs';

/**
 * The package's version, from package.json (one folder up from src/ and from the built dist/
 * alike), so the API reference names the Signet it describes.
 */
export const VERSION: string = JSON.parse(
  fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
