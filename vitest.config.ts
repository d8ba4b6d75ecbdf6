import { configDefaults, defineConfig } from 'vitest/config';

/*
 * Two suites. `npm test` runs the `fast` project: every test file not listed in SLOW, so a new
 * file lands there. `npm run test:slow` runs the `slow` project: the files below, each of which
 * costs a minute or more of a 2-core machine's time or starts several servers, measured with
 * `vitest run --reporter=json` (seconds of its own tests on SQLite, before its setup). CI runs
 * both, on both databases. `npx vitest run FILE` runs any one file, whichever suite it is in.
 */
const SLOW = [
  // Fault injection: real servers whose dependencies are cut, locked or killed, and the outage
  // waited out (sigkill-sealing 70 s, dependencies-down 28, sqlite-locked 16, sigkill-webhooks
  // 12, postgres-restart 11, s3-down 4).
  'test/faults/**/*.test.ts',
  // Scale: three server processes on one PostgreSQL database, and shutdowns under load
  // (PostgreSQL only).
  'test/scale/**/*.test.ts',
  'test/webhooks/multi-instance.test.ts',
  // Crashes: 2,000 bulk-send documents across a killed process (76 s); 200 webhook events
  // across a killed server (15 s).
  'test/bulk-sends/bulk-send-crash.test.ts',
  'test/webhooks/crash-recovery.test.ts',
  // Attack: every decompression and parser bomb against a running server (14 s).
  'test/hostile/server-under-attack.test.ts',
  // Chromium opens every operation's example in the API reference (107 s).
  'test/web/docs-page.test.ts',
  // axe in Chromium over every state of the signing, campaign and verify pages, in English and
  // Arabic at two widths (30 s), and signing with the keyboard alone (14 s): the two costliest
  // browser files of the fast suite, which took 498 s on this machine with them.
  'test/web/a11y.test.ts',
  'test/web/a11y-keyboard.test.ts',
];

/*
 * The suite runs once on SQLite (the default) and again on PostgreSQL (TEST_DATABASE_URL set).
 * Files whose outcome cannot depend on the database (PDF signing and reading, mail rendering, the
 * source rules, the build, the generated client, the /docs page built from the route schemas) run
 * only in the first pass; the second would repeat the same minutes of CPU for the same answer.
 */
const DATABASE_INDEPENDENT = [
  'test/pdf/**',
  'test/mail/**',
  'test/architecture/**',
  'test/build/**',
  'test/client/client-current.test.ts',
  'test/web/docs-page.test.ts',
];
const skipped = process.env.TEST_DATABASE_URL ? DATABASE_INDEPENDENT : [];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // Tests that start `signet` as a child process run dist/: built once, before them.
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW, ...skipped],
          // One process imports the sources once for all the files, rather than each file in a
          // fresh one: importing was most of the time of the short files (21 files of
          // documents, signers, fields, http, folders, templates: 95 s, 47 of them importing,
          // against 27 s). A test file must then not depend on the modules' state being fresh.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'slow', include: SLOW, exclude: skipped },
      },
    ],
  },
});
