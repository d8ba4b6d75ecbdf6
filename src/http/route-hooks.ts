import type { FastifyInstance, RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preHandler' | 'onSend';
/** One hook of kind K as a route declares it (a route holds one, or a list). */
type RouteHook<K extends HookName> = Exclude<NonNullable<RouteOptions[K]>, readonly unknown[]>;

function isList<T>(hooks: T | T[]): hooks is T[] {
  return Array.isArray(hooks);
}

function appended<T>(existing: T | T[] | undefined, hook: T): T[] {
  if (existing === undefined) return [hook];
  return isList(existing) ? [...existing, hook] : [existing, hook];
}

// One writer per hook kind, so each assignment is checked against that kind's handler type; the
// mapped type lets `hookRoutes` pick the writer that matches its `name` without a cast.
const addHook: { [K in HookName]: (route: RouteOptions, hook: RouteHook<K>) => void } = {
  onRequest: (route, hook) => {
    route.onRequest = appended(route.onRequest, hook);
  },
  preHandler: (route, hook) => {
    route.preHandler = appended(route.preHandler, hook);
  },
  onSend: (route, hook) => {
    route.onSend = appended(route.onSend, hook);
  },
};

/**
 * Adds a hook to the routes `applies` picks, as they are declared, instead of to every request:
 * a global hook that returns at once for most routes still costs each request a turn through
 * Fastify's hook runner (and an async one a promise). Register before the routes.
 */
export function hookRoutes<K extends HookName>(
  app: FastifyInstance,
  name: K,
  applies: (route: RouteOptions) => boolean,
  hook: RouteHook<K>,
): void {
  const add = addHook[name];
  app.addHook('onRoute', (route) => {
    if (applies(route)) add(route, hook);
  });
}
