import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/*
 * Fastify compiles a serializer for every response of every route, and a validator for every
 * part of every request, when the app starts: about 950 serializers and 145 validators, of which
 * only about 95 and 60 differ (each route repeats the same error responses, `{ id }` parameters,
 * pages). Compiling each distinct schema once shortens a server's start, and every app a test
 * builds. A compiled function depends only on its schema (and on the shared schemas, the same for
 * every route of one app), so schemas with the same JSON text share one.
 *
 * Each is also compiled only when first used: compiling took most of a server's start (about a
 * second of CPU on the 2-core machine, `npm run bench:startup`), for routes a given run may
 * never call; the first request of a route pays its own few milliseconds instead.
 */

/** A function that compiles itself (`compile()`) on its first call, then is that function. */
function lazily<F extends (...args: never[]) => unknown>(compile: () => F): F {
  let fn: F | undefined;
  return ((...args: Parameters<F>) => {
    fn ??= compile();
    return fn(...args);
  }) as F;
}

/** `compile`, run once per distinct schema (`schemaOf`, by its JSON text); later calls get the same function. */
export function compileOnce<A, T>(schemaOf: (arg: A) => unknown, compile: (arg: A) => T) {
  const compiled = new Map<string, T>();
  return (arg: A): T => {
    const key = JSON.stringify(schemaOf(arg));
    let fn = compiled.get(key);
    if (fn === undefined) {
      fn = compile(arg);
      compiled.set(key, fn);
    }
    return fn;
  };
}

/**
 * Fastify's own serializers (fast-json-stringify), each distinct response schema compiled once,
 * on first use unless `lazy` is false (PERF_OFF=lazy-schemas compiles them all at start).
 */
export function schemaController(lazy: boolean): FastifyServerOptions['schemaController'] {
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas, options) => {
        const compile = compileOnce(
          (route) => route.schema,
          SerializerSelector()(externalSchemas, options),
        );
        return lazy ? (route) => lazily(() => compile(route)) : compile;
      },
    },
  };
}
