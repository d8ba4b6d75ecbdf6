/**
 * The stage of the request each sample of a server's CPU profile belongs to (authentication, rate
 * limit, each statement, serialization, `writev`…): the innermost frame of its stack a rule
 * below names. A statement is named by the nearest Signet function above the driver that ran it
 * (the repository or hook that asked). Used by bench/profile-summary.ts.
 */
export interface Frame {
  functionName: string;
  url: string;
}

type Rule = [stage: string, test: (f: Frame) => boolean];
const inUrl =
  (...parts: string[]) =>
  (f: Frame) =>
    parts.some((p) => f.url.includes(p));
const named =
  (...names: string[]) =>
  (f: Frame) =>
    names.includes(f.functionName);

/** First match wins at each frame; frames are tried from the leaf up. */
const RULES: Rule[] = [
  ['writev (sending answers)', named('writev', 'writevGeneric', 'writeGeneric', 'writeBuffer')],
  [
    'statement',
    inUrl('/db/create-db.', '/db/sqlite-', 'better-sqlite3', '/pg/lib', 'pg-protocol', '/db/named'),
  ],
  ['Kysely (building, executing)', inUrl('/kysely/', '/db/prepared.')],
  ['authentication', inUrl('/http/auth.')],
  ['rate limit', inUrl('@fastify/rate-limit', '/http/rate-limit.', '/http/counters.')],
  ['idempotency', inUrl('/http/idempotency.')],
  ['request ids', (f) => f.url.includes('/ids.') || f.functionName === 'genReqId'],
  ['validation', inUrl('/http/validation.', '/ajv/', '/ajv-formats/')],
  ['serialization', inUrl('fast-json-stringify', '/serialize', '.mappers.')],
  ['metrics', inUrl('prom-client', '/http/metrics.')],
  ['logging', inUrl('/pino', 'logger-factory', 'log-redaction')],
  ['empty-body hook', inUrl('/http/empty-body.')],
  ['headers (reply.header, X-Request-Id)', named('header', 'Reply.header')],
  ["Signet's handlers and services", (f) => ours(f) && !f.url.includes('/db/')],
  ['Fastify (routing, hooks)', inUrl('/fastify/', 'find-my-way', 'avvio')],
  ['Node HTTP (parse, headers)', (f) => f.url.startsWith('node:_http') || f.url === 'node:http'],
  ['garbage collection', named('(garbage collector)')],
  ['idle', named('(idle)')],
];

/** Signet's own code (built or not), not a dependency's `dist`. */
const ours = (f: Frame) => /\/(dist|src)\//.test(f.url) && !f.url.includes('node_modules');

/** Fast-json-stringify's compiled serializers have no URL; names like `anonymous7`. */
const compiledSerializer = (f: Frame) => f.url === '' && /^anonymous\d*$/.test(f.functionName);

/** The stage of a stack given leaf first. */
export function stageOf(stack: Frame[]): string {
  for (let i = 0; i < stack.length; i++) {
    const f = stack[i];
    if (compiledSerializer(f)) return 'serialization';
    const rule = RULES.find(([, test]) => test(f));
    if (!rule) continue;
    if (rule[0] !== 'statement') return rule[0];
    const asker = stack.slice(i + 1).find((g) => ours(g) && !g.url.includes('/db/'));
    const where = asker
      ? `${asker.url.replace(/^.*\/(dist|src)\//, '')} ${asker.functionName}`
      : 'after an await, asker not on the stack';
    return `statements (database driver): ${where}`;
  }
  return 'other (Node internals, native)';
}

/** Start-up samples (module loading, key generation, fonts) are not a request's. */
export const isStartup = (stack: Frame[]) =>
  stack.some(
    (f) =>
      f.url.startsWith('node:internal/modules') ||
      f.functionName === 'generateKeyPairSync' ||
      f.url.includes('/fonts/'),
  );
