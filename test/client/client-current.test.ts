import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_DIR, generateClientFiles } from '../../scripts/client-generate.ts';

/*
 * The checked-in client is what `npm run client:generate` makes from the current code: an API
 * change without regenerating fails here. And the package builds as published (tsc to JS and
 * .d.ts) and its built module loads in plain Node.
 */
const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built: string[] = [];
afterAll(() => {
  for (const dir of built) fs.rmSync(dir, { recursive: true, force: true });
});

describe('clients/typescript', () => {
  it('its README links only to what the package holds (it is read inside the packed tarball)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8'));
    const readme = fs.readFileSync(path.join(CLIENT_DIR, 'README.md'), 'utf8');
    const outside = [...readme.matchAll(/\]\(([^)]+)\)/g)]
      .map((m) => m[1])
      .filter((target) => !/^(https?:|#)/.test(target))
      .filter((target) => {
        const file = path.posix.normalize(target.replace(/^\.\//, ''));
        return !(pkg.files as string[]).some((f) => file === f || file.startsWith(`${f}/`));
      });
    expect(outside).toEqual([]);
  });

  it('its openapi.json and src/schema.ts are current (regenerate with `npm run client:generate`)', async () => {
    const files = await generateClientFiles();
    expect(Object.keys(files).sort()).toEqual(['openapi.json', 'src/schema.ts']);
    for (const [rel, text] of Object.entries(files)) {
      const file = path.join(CLIENT_DIR, rel);
      const checkedIn = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      // Not toBe(text): a 400 KB diff helps nobody; the message says what to do.
      if (checkedIn !== text)
        expect.fail(
          `clients/typescript/${rel} is out of date: run \`npm run client:generate\` and commit the result`,
        );
    }
    // Deterministic: a second run gives the same bytes (no timestamps, keys sorted).
    expect(await generateClientFiles()).toEqual(files);
  });

  it('builds with its own tsconfig into JavaScript and type declarations that plain Node loads', async () => {
    const out = fs.mkdtempSync(path.join(CLIENT_DIR, '.build-test-'));
    built.push(out);
    await run(
      process.execPath,
      [tsc, '-p', path.join(CLIENT_DIR, 'tsconfig.json'), '--outDir', out],
      { timeout: 120_000 },
    );
    for (const name of ['index', 'client', 'retry', 'webhooks', 'schema']) {
      expect(fs.existsSync(path.join(out, `${name}.js`)), `${name}.js`).toBe(true);
      expect(fs.existsSync(path.join(out, `${name}.d.ts`)), `${name}.d.ts`).toBe(true);
    }
    expect(fs.readFileSync(path.join(out, 'index.d.ts'), 'utf8')).toMatch(
      /createSignetClient[\s\S]*verifyWebhook/,
    );
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(path.join(out, 'index.js'))}); console.log(Object.keys(m).sort().join(','))`,
      ],
      { timeout: 30_000 },
    );
    expect(stdout.trim()).toBe(
      'MAX_RETRIES,WebhookVerificationError,createSignetClient,retryAfterMs,verifyWebhook',
    );
  });
});
