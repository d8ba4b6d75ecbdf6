#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step): tsx registers its loader, then the CLI starts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
