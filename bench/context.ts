import type { BenchDatabase, RunningProcess } from './harness.ts';
import type { Seeded } from './seed.ts';

/* What a scenario of `npm run bench` is given (Context) and answers (ScenarioResult). */

export interface ScenarioResult {
  ratio?: number | null;
  reqPerSec?: number;
  baselineReqPerSec?: number;
  p50Ms?: number;
  p99Ms?: number;
  database: string;
  goal: string;
  /** The scenario's own headline figures, for the table (throughput scenarios have the columns). */
  summary?: string;
  [extra: string]: unknown;
}

export interface Context {
  db: BenchDatabase;
  seeded: Seeded;
  server: RunningProcess;
  auth: Record<string, string>;
}
