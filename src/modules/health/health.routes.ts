import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  status: Type.String({ description: '`ok`, or `unavailable` when any check below is not `ok`' }),
  database: Type.String({
    description:
      '`ok` or `unreachable` (PostgreSQL down or restarting; SQLite file not writable or its write lock held by another process)',
  }),
  storage: Type.String({
    description: '`ok` or `unreachable` (local directory not writable, S3 endpoint down)',
  }),
  certificate: Type.String({
    description:
      '`ok`, or `unusable` when the signing certificate cannot be read or its password is wrong (nothing can be sealed)',
  }),
});

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'health',
        summary: 'The process is up',
        description:
          'Answers as long as the process serves HTTP, whatever its dependencies: a liveness probe. Use `ready` to know whether it can do its work.',
        security: [],
        response: { 200: Type.Object(Health.properties, { description: 'The process is up' }) },
        example: { response: { status: 'ok' } },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'ready',
        summary: 'Database and storage are reachable and the signing certificate opens',
        description:
          'A readiness probe: checks the database (`select 1`, and with SQLite whether it can be written), the file storage and the signing certificate. 200 when all three are `ok`, ' +
          '503 with the same body naming what is not. A load balancer should send traffic only to instances answering 200.',
        security: [],
        response: {
          200: Type.Object(Ready.properties, { description: 'Every dependency is reachable' }),
          503: Type.Object(Ready.properties, {
            description: 'A dependency is not usable: the body says which',
            examples: [
              { status: 'unavailable', database: 'ok', storage: 'unreachable', certificate: 'ok' },
            ],
          }),
        },
        example: { response: { status: 'ok', database: 'ok', storage: 'ok', certificate: 'ok' } },
      },
    },
    async (_request, reply) => {
      const { db, storage } = app.deps;
      const check = async (fn: () => Promise<unknown>) => {
        try {
          await fn();
          return 'ok';
        } catch {
          return 'unreachable';
        }
      };
      const [database, store, certProblem] = await Promise.all([
        check(async () => {
          await sql`select 1`.execute(db);
          // SQLite answers reads while its write lock is held elsewhere: writes are what fail.
          if (!app.deps.databaseWritable()) throw new Error('the database cannot be written');
        }),
        check(() => storage.ping()),
        app.deps.certificate.problem(),
      ]);
      const certificate = certProblem === null ? 'ok' : 'unusable';
      const ok = database === 'ok' && store === 'ok' && certificate === 'ok';
      return reply
        .code(ok ? 200 : 503)
        .send({ status: ok ? 'ok' : 'unavailable', database, storage: store, certificate });
    },
  );
}
