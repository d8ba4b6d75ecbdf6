import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({ status: Type.String(), database: Type.String(), storage: Type.String() });

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
        summary: 'Database and storage are reachable',
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
      const [database, store] = await Promise.all([check(() => sql`select 1`.execute(db)), check(() => storage.ping())]);
      const ok = database === 'ok' && store === 'ok';
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', database, storage: store });
    },
  );
}
