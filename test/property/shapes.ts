import fc from 'fast-check';
import { dateTimeish, emailish, nastyString, objectOf } from './arbitraries.ts';

/**
 * Plausible values for each resource's fields: of the right JSON type, usually valid, and now
 * and then at the edges the services decide (boundaries, orders already taken, boxes off the
 * page, dates in the past or not representable, folders of another organization, U+0000, lone
 * surrogates). `body()`/`objectOf()` then mix in hostile values.
 */

/** Mostly `good`, sometimes `edge`. */
const usually = <T, U>(good: fc.Arbitrary<T>, edge: fc.Arbitrary<U>) =>
  fc.oneof(
    { weight: 9, arbitrary: good as fc.Arbitrary<T | U> },
    { weight: 1, arbitrary: edge as fc.Arbitrary<T | U> },
  );

const awkwardText = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u200b',
  'O\'Brien "NDA"',
  '100% _done_',
  '\\',
  ' \t',
);

export const nameish = usually(
  fc.oneof(
    fc.string({ minLength: 1, maxLength: 60 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
    fc.constantFrom('O\'Brien "NDA"', '100% _done_', 'Vertrag für Müller'),
  ),
  fc.oneof(
    awkwardText,
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc.constantFrom(
      'a',
      'x'.repeat(200),
      'x'.repeat(201),
      'é'.repeat(200),
      '𝕏'.repeat(100),
      '𝕏'.repeat(101),
      ' ',
      '',
    ),
  ),
);

const text = (max: number) =>
  usually(
    fc.string({ maxLength: 60 }),
    fc.oneof(awkwardText, fc.constantFrom('t'.repeat(max), 't'.repeat(max + 1))),
  );

export const signerFields = {
  name: nameish,
  email: usually(fc.emailAddress(), emailish),
  role: fc.constantFrom('signer', 'approver', 'cc'),
  order: usually(fc.integer({ min: 0, max: 20 }), fc.constantFrom(0, 999, 1000, -1)),
  phone: usually(
    fc.constantFrom(null, '+1 555 0100', '+44 (20) 7946-0958'),
    fc.constantFrom('12', '+'.repeat(40), 'phone', '555\u00000100'),
  ),
};

const percent = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.double({ min: 0, max: 100, noNaN: true }),
  fc.constantFrom(0, 100, 1e-9, 99.99999999999999, 50.5),
);
const corner = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.double({ min: 0, max: 40, noNaN: true }),
);
const size = fc.oneof(
  fc.integer({ min: 1, max: 60 }),
  fc.double({ min: 0.01, max: 60, noNaN: true }),
);

export const fieldFields = {
  type: fc.constantFrom(
    'signature',
    'initials',
    'name',
    'email',
    'date',
    'text',
    'number',
    'checkbox',
    'dropdown',
    'radio',
  ),
  page: usually(fc.integer({ min: 1, max: 3 }), fc.constantFrom(10_000, 10_001, 0)),
  x: usually(corner, percent),
  y: usually(corner, percent),
  width: usually(size, percent),
  height: usually(size, percent),
  label: text(200),
  required: fc.boolean(),
  readOnly: fc.boolean(),
  assignedTo: usually(fc.integer({ min: 0, max: 3 }), fc.constantFrom(999, 1000)),
  placeholder: fc.oneof(fc.constant(null), text(200)),
  defaultValue: usually(
    fc.constantFrom(null, 'a'),
    fc.oneof(fc.constantFrom('b', 'z'), text(1000)),
  ),
  options: usually(
    fc.constantFrom(null, ['a', 'b']),
    fc.oneof(
      fc.constantFrom(['a', 'a'], [], ['x'.repeat(201)]),
      fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 4 }),
    ),
  ),
};
export const FIELD_REQUIRED = ['type', 'page', 'x', 'y', 'width', 'height'];

const future = fc
  .date({
    min: new Date('2030-01-01T00:00:00Z'),
    max: new Date('9999-12-31T23:59:59Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

/** Document create/patch fields; `folderIds` are folders of the caller and of another organization. */
export function documentFields(folderIds: string[]) {
  return {
    name: nameish,
    signingType: fc.constantFrom('sequential', 'parallel'),
    message: text(5000),
    expiresAt: usually(fc.oneof(future, fc.constant(null)), dateTimeish),
    folderId: usually(
      folderIds.length
        ? fc.oneof(fc.constantFrom(...folderIds), fc.constant(null))
        : fc.constant(null),
      nastyString,
    ),
    emailSubject: fc.oneof(fc.constant(null), text(200)),
    emailMessage: fc.oneof(fc.constant(null), text(5000)),
    otpMethod: fc.constantFrom(null, 'email'),
    reminderFrequency: fc.constantFrom(null, 'daily', 'every_3_days', 'weekly'),
    requireKyc: fc.boolean(),
  };
}

/** A signer or field object inside a document create body. */
export const signerInput = usually(
  fc.record(signerFields, { requiredKeys: ['name', 'email'] }),
  objectOf(signerFields, ['name', 'email']),
);

/**
 * Field objects whose members mostly agree with each other (options only for choice types, the
 * box on the page), since independent values would almost always break a cross-field rule.
 */
export const coherentField = fc
  .tuple(
    fc.record(fieldFields, { requiredKeys: FIELD_REQUIRED as never[] }),
    fc.integer({ min: 0, max: 9 }),
  )
  .map(([f, dice]) => {
    if (dice === 0) return f;
    const choice = f.type === 'dropdown' || f.type === 'radio';
    const fixed: Record<string, unknown> = { ...f, options: choice ? ['a', 'b'] : null };
    if (!choice && typeof f.defaultValue === 'string') fixed.defaultValue = f.defaultValue;
    if (choice && f.defaultValue !== undefined && f.defaultValue !== null) fixed.defaultValue = 'a';
    return fixed;
  });
export const fieldInput = usually(coherentField, objectOf(fieldFields, FIELD_REQUIRED));

export const folderFields = (parentIds: string[]) => ({
  name: nameish,
  parentId: usually(fc.oneof(fc.constantFrom(...parentIds), fc.constant(null)), nastyString),
});
