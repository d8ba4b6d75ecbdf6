// A field whose value is typed: text, name, email, date or number. Name and email start with what
// the page knows of the signer, a date with today's date; each is checked as its input type is.

import { h } from './dom.js';
import { controlOf } from './field-types.js';
import { t } from './i18n.js';

const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** `common`: the input's attributes (fields.js); `name`: the field's name, its placeholder. */
export function textControl(field, element, common, ctx, name) {
  const initial = field.defaultValue ?? '';
  const kinds = {
    name: { type: 'text', autocomplete: 'name', prefill: ctx.signer.name, maxLength: 200 },
    email: {
      type: 'email',
      autocomplete: 'email',
      prefill: ctx.signer.email,
      inputmode: 'email',
      maxLength: 254,
    },
    date: { type: 'date', prefill: today() },
    number: { type: 'number', inputmode: 'decimal', step: 'any' },
    text: { type: 'text', maxLength: ctx.limits.valueMaxChars },
  };
  const kind = kinds[controlOf(field)] ?? kinds.text;
  const input = h('input', {
    ...common,
    type: kind.type,
    // Right-to-left values (an Arabic or Hebrew name) start at the right edge, not cut off.
    dir: 'auto',
    autocomplete: kind.autocomplete ?? 'off',
    inputmode: kind.inputmode,
    step: kind.step,
    placeholder: field.placeholder ?? (kind.type === 'date' ? undefined : name),
    maxlength: kind.maxLength ? String(kind.maxLength) : undefined,
    // Read-only values stay focusable and readable; disabled ones would be skipped by screen readers.
    disabled: undefined,
    readonly: field.readOnly,
    value: initial || (field.readOnly ? '' : (kind.prefill ?? '')),
  });
  element.append(input);
  // Until the signer types here, a name or email field follows what they give elsewhere (the
  // campaign page's "Full name" and "Email").
  let edited = false;
  input.addEventListener('input', () => (edited = true));
  return {
    focusTarget: input,
    prefill: (value) => {
      if (edited || field.readOnly) return;
      input.value = value;
      element.classList.toggle('is-filled', input.value.trim() !== '');
    },
    value: () =>
      field.type === 'number' && input.value !== '' ? Number(input.value) : input.value.trim(),
    // A number input holding "12e" reports an empty value; `badInput` catches it so it is not taken as empty.
    filled: () => input.value.trim() !== '' || input.validity.badInput,
    listen: (fn) => input.addEventListener('input', fn),
    check: () => {
      if (input.validity.badInput || (input.value && !input.checkValidity())) {
        if (kind.type === 'email') return t('field.invalidEmail');
        if (kind.type === 'number') return t('field.invalidNumber');
        if (kind.type === 'date') return t('field.invalidDate');
        return input.validationMessage || t('error.valueInvalid');
      }
      return null;
    },
  };
}
