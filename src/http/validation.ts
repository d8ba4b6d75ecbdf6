import { Ajv } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import ajvFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { compileOnce } from './schema-compilers.ts';

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused), while
 * query strings and path parameters arrive as text and are coerced to the declared types.
 */
export function registerValidation(app: FastifyInstance, lazy: boolean): void {
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({
      allErrors: true,
      removeAdditional: false,
      useDefaults: true,
      coerceTypes,
      strict: false,
    });
    // A CommonJS module: under NodeNext its default import is module.exports, whose .default is the plugin.
    ajvFormats.default(ajv);
    // RFC 3339 allows a leap second (23:59:60), which a JavaScript Date cannot hold; a date-time
    // is accepted only when the services can turn it into a Date.
    const dateTime = ajv.formats['date-time'] as {
      validate: (s: string) => boolean;
      compare: (a: string, b: string) => number;
    };
    ajv.addFormat('date-time', {
      type: 'string',
      compare: dateTime.compare,
      validate: (s: string) => dateTime.validate(s) && Number.isFinite(Date.parse(s)),
    });
    return ajv;
  };
  const bodyAjv = make(false);
  const textAjv = make('array');
  const compileBody = compileOnce(
    (schema: object) => schema,
    (schema) => bodyAjv.compile(schema),
  );
  const compileText = compileOnce(
    (schema: object) => schema,
    (schema) => textAjv.compile(schema),
  );
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const compile = httpPart === 'body' ? compileBody : compileText;
    // Compiled on the first request that needs it (http/schema-compilers.ts); errors are read after.
    let validate = lazy ? undefined : compile(schema as object);
    const checked = Object.assign(
      // Fastify passes only `parentData` and `parentDataProperty` of the context; Ajv's compiled
      // function defaults the rest (instancePath '', rootData the data).
      (data: unknown, context?: DataValidationCxt): boolean => {
        validate ??= compile(schema as object);
        if (!validate(data, context)) {
          checked.errors = validate.errors ?? null;
          return false;
        }
        const at = nulPath(data);
        checked.errors =
          at === null
            ? null
            : [
                {
                  instancePath: at,
                  schemaPath: '',
                  keyword: 'nul',
                  params: {},
                  message: 'must not contain the character U+0000',
                },
              ];
        return at === null;
      },
      // Fastify passes the parent object to Ajv functions (so a root value can be coerced) when
      // the function has a `schemaEnv`, which every Ajv function has; keep that.
      { schemaEnv: true, errors: null as FastifySchemaValidationError[] | null },
    );
    return checked;
  });
}

/**
 * Where the first U+0000 is in a request part, as a JSON pointer ('' for the part itself), or
 * null. PostgreSQL text cannot store it (the query fails), so it is refused up front for every
 * input, on both databases alike. The pointer is spelled out only on the way back from a find:
 * most inputs have none.
 */
function nulPath(value: unknown): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? '' : null;
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return null;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes('\u0000')) return `/${key}`;
    const item = (value as Record<string, unknown>)[key];
    if (item !== null && (typeof item === 'object' || typeof item === 'string')) {
      const found = nulPath(item);
      if (found !== null) return `/${key}${found}`;
    }
  }
  return null;
}
