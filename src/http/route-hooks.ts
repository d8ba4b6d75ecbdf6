import type { FastifyInstance, RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preHandler' | 'onSend';

/**
 * Adds a hook to the routes `applies` picks, as they are declared, instead of to every request:
 * a global hook that returns at once for most routes still costs each request a turn through
 * Fastify's hook runner (and an async one a promise). Register before the routes.
 */
export function hookRoutes(app: FastifyInstance, name: HookName, applies: (route: RouteOptions) => boolean, hook: (...args: never[]) => unknown): void {
  app.addHook('onRoute', (route) => {
    if (!applies(route)) return;
    const existing = route[name];
    const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    (route as unknown as Record<HookName, unknown>)[name] = [...list, hook];
  });
}
