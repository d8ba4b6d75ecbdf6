#!/usr/bin/env node
// Runs the CLI built into dist/. In a clone (src/ beside it) dist/ is rebuilt first when it is
// older than the sources, so a pull or an edit never runs stale code; the container image has
// dist/ only.
import fs from 'node:fs';
import module from 'node:module';

// Node 22.1 and later keep the compiled code of the modules loaded here on disk (in the system's
// temporary directory), so later starts skip compiling them; on Node 20 this is not there.
module.enableCompileCache?.();

if (fs.existsSync(new URL('../src/', import.meta.url))) {
  const { buildIfStale } = await import('../scripts/build.js');
  await buildIfStale();
}
await import('../dist/cli.js');
