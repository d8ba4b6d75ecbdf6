import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  status: Type.String({ description: '`ok`, or `unavailable` when any check below is not `ok`' }),
  database: Type.String({ description: '`ok` or `unreachable`' }),
  storage: Type.String({ description: '`ok` or `unreachable` (local directory not writable, S3 endpoint down)' }),
  certificate: Type.String({ description: '`ok`, or `unusable` when the signing certificate cannot be read or its password is wrong (nothing can be sealed)' }),
});

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    { schema: { tags: ['Operations'], operationId: 'health', summary: 'The process is up', security: [], response: { 200: Health } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'ready',
        summary: 'Database and storage are reachable and the signing certificate opens',
        security: [],
        response: { 200: Ready, 503: Ready },
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
        check(() => sql`select 1`.execute(db)),
        check(() => storage.ping()),
        app.deps.certificate.problem(),
      ]);
      const certificate = certProblem === null ? 'ok' : 'unusable';
      const ok = database === 'ok' && store === 'ok' && certificate === 'ok';
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', database, storage: store, certificate });
    },
  );
}
