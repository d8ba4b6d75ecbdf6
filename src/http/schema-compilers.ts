import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/*
 * Fastify compiles a serializer for every response of every route, and a validator for every
 * part of every request, when the app starts: about 950 serializers and 145 validators, of which
 * only about 95 and 60 differ (each route repeats the same error responses, `{ id }` parameters,
 * pages). Compiling each distinct schema once shortens a server's start, and every app a test
 * builds. A compiled function depends only on its schema (and on the shared schemas, the same for
 * every route of one app), so schemas with the same JSON text share one.
 */

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

/** Fastify's own serializers (fast-json-stringify), each distinct response schema compiled once. */
export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildSerializer: (externalSchemas, options) =>
      compileOnce((route) => route.schema, SerializerSelector()(externalSchemas, options)),
  },
};
