import fc from 'fast-check';

/**
 * Generators of hostile input: the values a buggy client, a fuzzer or an attacker would send.
 * Each field generator mixes plausible values (so requests get past validation and reach the
 * service and the database) with adversarial ones.
 */

const HUGE = [
  'x'.repeat(201),
  'y'.repeat(5001),
  'é'.repeat(40_000),
  '𝕏'.repeat(3000),
  ' '.repeat(300),
  'a'.repeat(70_000),
];

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\t\n',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e309',
  '0x10',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '%',
  '_',
  '%_%',
  '\\',
  '\\%',
  "'",
  '"',
  "O'Brien",
  "'; drop table documents; --",
  '" OR 1=1 --',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u200b\ufeff',
  '../../etc/passwd',
  '..%2f..%2f',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '__proto__',
  'constructor',
  'doc_',
  'fol_01h0000000000000000000000',
];

export const specialString = fc.constantFrom(...SPECIAL_STRINGS);

/** Any string a client could put in JSON, weighted towards the troublesome ones. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: specialString },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE) },
);

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.integer({ min: -5, max: 1005 }),
  fc.double({ min: -200, max: 200, noNaN: true }),
  fc.double(),
  fc.constantFrom(
    -1,
    0,
    1,
    0.5,
    99.999999,
    100,
    100.0000001,
    1e308,
    -1e308,
    2 ** 53 + 1,
    Number.MAX_SAFE_INTEGER,
    1e-320,
    -0,
  ),
);

/** Any JSON value at all (fast-check's `jsonValue`, shallow so runs stay fast). */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Something of the wrong kind for almost any field. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: nastyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), nastyString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: anyJson },
);

/** `valid` most of the time, something hostile otherwise. */
export const mostly = <T>(valid: fc.Arbitrary<T>, weight = 3): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 2, arbitrary: nastyValue },
  );

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Text that looks like an ISO 8601 timestamp, with out-of-range parts (month 13, second 60, offset +25:00…). */
export const dateTimeish: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      year: fc.oneof(fc.integer({ min: 2020, max: 2100 }), fc.integer({ min: 0, max: 9999 })),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 61 }),
      second: fc.integer({ min: 0, max: 61 }),
      fraction: fc.constantFrom('', '.0', '.123', '.999999999'),
      zone: fc.constantFrom(
        'Z',
        'z',
        '+00:00',
        '-00:00',
        '+14:00',
        '-12:00',
        '+23:59',
        '+25:00',
        '',
        '+0530',
      ),
      sep: fc.constantFrom('T', 't', ' '),
    })
    .map(
      (d) =>
        `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}${d.sep}${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}${d.fraction}${d.zone}`,
    ),
  fc
    .date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2099-12-31T23:59:60Z',
    '2030-02-29T00:00:00Z',
    '2032-02-29T12:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    'tomorrow',
    '2030-01-01',
  ),
);

/** Email addresses, valid and almost valid. */
export const emailish: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.emailAddress() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a@b',
      'a@b.c',
      '@example.test',
      'a@',
      'a b@example.test',
      'a@exa mple.test',
      'ÄÖÜ@example.test',
      'a@xn--bcher-kva.example',
      `${'a'.repeat(64)}@example.test`,
      `${'a'.repeat(250)}@example.test`,
      '"quoted"@example.test',
      'a\u0000@example.test',
      'A@EXAMPLE.TEST',
    ),
  },
);

/** Identifiers that a client might put in a URL path: real ones, made-up ones and traversal attempts. */
export function pathId(known: string[]): fc.Arbitrary<string> {
  const raw = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      '..',
      '.',
      '../..',
      '..\\..',
      '%',
      '%00',
      '\u0000',
      '?',
      '#',
      ' ',
      '/',
      '//',
      'x'.repeat(64),
      'x'.repeat(65),
      'x'.repeat(5000),
      '𝕏'.repeat(40),
      'doc_',
      "' or 1=1",
    ),
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) },
    { weight: 4, arbitrary: raw.map((s) => (s === '' ? 'x' : encodeURIComponent(s))) },
    // Written as-is into the URL: dot segments, bad percent-escapes, encoded slashes.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E%2E%2F',
        '..%2F..%2Fetc',
        '%ZZ',
        '%',
        '%E0%A4%A',
        '%C0%AE',
        '%00',
        '%2F',
        'a%2Fb',
        'x;y',
        'x,y',
      ),
    },
  );
}

export interface QueryOptions {
  /** Name of the list in its cursors (`{l}` of the cursor), to forge cursors that almost fit. */
  list: string;
  /** Extra parameters the endpoint knows, with generators for them. */
  extra?: Record<string, fc.Arbitrary<unknown>>;
}

/** A base64url cursor shaped like the real ones, with hostile contents. */
function forgedCursor(list: string): fc.Arbitrary<string> {
  return fc
    .record(
      {
        l: fc.oneof(fc.constant(list), nastyString),
        k: fc.oneof(dateTimeish, nastyValue),
        i: fc.oneof(nastyString, nastyValue),
      },
      { requiredKeys: [] },
    )
    .map((c) => Buffer.from(JSON.stringify(c)).toString('base64url'));
}

/** A query string: known parameters with good and bad values, unknown ones, repeats and raw escapes. */
export function queryString(options: QueryOptions): fc.Arbitrary<string> {
  const text = (a: fc.Arbitrary<unknown>) =>
    a.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')));
  const params: Record<string, fc.Arbitrary<string>> = {
    limit: text(
      fc.oneof(
        fc.integer({ min: -3, max: 130 }).map(String),
        fc.constantFrom('1e2', '0x10', ' 5', '5 ', '100.0', '+5', '', '25abc'),
        nastyValue,
      ),
    ),
    cursor: text(fc.oneof(forgedCursor(options.list), nastyString)),
  };
  for (const [name, arb] of Object.entries(options.extra ?? {})) params[name] = text(arb);
  const pairs = fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .constantFrom(...Object.keys(params))
          .chain((name) => params[name]!.map((value) => [name, value] as const)),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.oneof(
            fc.string({ maxLength: 10 }),
            fc.constantFrom('__proto__', 'constructor', 'limit[]', 'cursor[a]'),
          ),
          nastyString,
        ),
      },
    ),
    { maxLength: 4 },
  );
  return fc.oneof(
    {
      weight: 8,
      arbitrary: pairs.map((list) => new URLSearchParams(list.map(([k, v]) => [k, v])).toString()),
    },
    // Plain, valid queries: hostile pairs alone left the success share of a list barely over the
    // 5% that expectMix requires (4.6% to 6.4% from run to run).
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constant(''),
        fc.integer({ min: 1, max: 100 }).map((n) => `limit=${n}`),
      ),
    },
    // Not produced by an encoder: raw percent signs, broken escapes, bare keys.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'limit',
        'limit=',
        '=5',
        '&&&',
        'search=%',
        'search=%E0%A4%A',
        'search=%00',
        'limit=5&limit=6',
        'status[]=draft',
        'search=a+b%2Bc',
        'cursor=%ZZ',
      ),
    },
  );
}

/** How a request body travels: a JSON value, or text that may not be JSON, with a content type. */
export interface Payload {
  payload: string | undefined;
  contentType: string | undefined;
}

/** `valid` with one of its members replaced by something hostile. */
export function mutated(
  valid: fc.Arbitrary<Record<string, unknown>>,
  names: string[],
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(valid, fc.constantFrom(...names), nastyValue)
    .map(([record, name, value]) => ({ ...record, [name]: value }));
}

/** An object of the endpoint's fields: all plausible, one hostile, or each one possibly hostile. */
export function objectOf(
  fields: Record<string, fc.Arbitrary<unknown>>,
  required: string[] = [],
  valid: fc.Arbitrary<Record<string, unknown>> = fc.record(fields, {
    requiredKeys: required as never[],
  }) as fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(fields);
  const loose = fc.record(Object.fromEntries(names.map((n) => [n, mostly(fields[n]!)])), {
    requiredKeys: [],
  }) as fc.Arbitrary<Record<string, unknown>>;
  return fc.oneof(
    { weight: 7, arbitrary: valid },
    { weight: 2, arbitrary: mutated(valid, names) },
    { weight: 1, arbitrary: loose },
  );
}

/**
 * Request bodies for an endpoint whose fields are `fields` (plausible values; see `objectOf`):
 * such objects, objects with unknown or read-only members, any JSON value, broken text, odd
 * content types.
 */
export function body(
  fields: Record<string, fc.Arbitrary<unknown>>,
  required: string[] = [],
  valid?: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Payload> {
  const known = objectOf(fields, required, valid);
  const withExtra = fc
    .tuple(
      known,
      fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 10 }),
          fc.constantFrom('id', 'status', 'orgId', 'createdAt', '__proto__', 'constructor'),
        ),
        nastyValue,
        { minKeys: 1, maxKeys: 2 },
      ),
    )
    .map(([a, b]) => ({ ...b, ...a }));
  const json = (a: fc.Arbitrary<unknown>) =>
    a.map(
      (v): Payload => ({ payload: JSON.stringify(v) ?? 'null', contentType: 'application/json' }),
    );
  return fc.oneof(
    { weight: 32, arbitrary: json(known) },
    { weight: 2, arbitrary: json(withExtra) },
    { weight: 2, arbitrary: json(anyJson) },
    {
      weight: 2,
      arbitrary: fc.record({
        payload: fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom(
            '{',
            '{"name":',
            '[1,',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{"x":1}}}',
            '\ufeff{}',
            'null',
            '"str"',
            '1',
            '',
          ),
        ),
        contentType: fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/JSON',
          'application/merge-patch+json',
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: known.map(
        (v): Payload => ({ payload: JSON.stringify(v), contentType: undefined }),
      ),
    },
  );
}
