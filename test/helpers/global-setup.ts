import { buildIfStale } from '../../scripts/build.js';

/*
 * Tests that start `signet` as a child process run bin/signet.js, which runs dist/: build it once
 * here, before any test file starts, rather than in the first of those children (and in several
 * at once).
 */
export async function setup(): Promise<void> {
  await buildIfStale();
}
