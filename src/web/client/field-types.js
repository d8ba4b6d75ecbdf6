// What each field type needs in the browser, served by the page as data (`data-field-types`,
// from the server's field-type registry: src/modules/documents-core/field-types.ts), so the signing and
// campaign pages share one description of the types instead of each keeping its own.

const TYPES = JSON.parse(document.body.dataset.fieldTypes || '{}');

/** The control a field is drawn with (`signature`, `checkbox`, `dropdown`, `text`, …). */
export function controlOf(field) {
  return TYPES[field.type]?.control ?? 'text';
}

/** Which adopted mark a signature-like field takes: `initials` or `signature`. */
export function markOf(field) {
  return controlOf(field) === 'initials' ? 'initials' : 'signature';
}

/**
 * The `values` of a `complete` or submission body from the page's controls: each type says how
 * its value is sent (`signature` through `body.signature`; `mark` the adopted mark's value;
 * `boolean` always; `text` when filled). Read-only fields are never sent.
 */
export function collectValues(controls) {
  const values = {};
  for (const c of controls) {
    const { field } = c;
    const submit = TYPES[field.type]?.submit ?? 'text';
    if (field.readOnly || submit === 'signature') continue;
    if (submit === 'boolean') values[field.id] = c.value();
    else if (submit === 'mark') {
      if (c.filled()) values[field.id] = c.value().value;
    } else if (c.filled()) values[field.id] = c.value();
  }
  return values;
}
