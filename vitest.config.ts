import { configDefaults, defineConfig } from 'vitest/config';

/*
 * The suite runs once on SQLite (the default) and again on PostgreSQL (TEST_DATABASE_URL set).
 * Files whose outcome cannot depend on the database (PDF signing and reading, mail rendering, the
 * source rules, the generated client, the /docs page built from the route schemas) run only in the
 * first pass; the second would repeat the same minutes of CPU for the same answer.
 */
const DATABASE_INDEPENDENT = [
  'test/pdf/**',
  'test/mail/**',
  'test/architecture/**',
  'test/build/**',
  'test/client/client-current.test.ts',
  'test/web/docs-page.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.TEST_DATABASE_URL ? DATABASE_INDEPENDENT : []),
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
  },
});
