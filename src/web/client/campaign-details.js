// "Your details" on the campaign page: the visitor's full name, email and (when the campaign
// collects it) phone, each a labelled input that says what is missing or wrong under itself.

import { h, nextId } from './dom.js';
import { t } from './i18n.js';

/** A labelled input of the details form. */
function detailInput({
  label,
  type,
  autocomplete,
  required,
  maxlength,
  format,
  hint,
  missing,
  invalid,
}) {
  const id = nextId('detail');
  const errorId = nextId('detail-err');
  const input = h('input', {
    class: 'input',
    id,
    dir: 'auto',
    type,
    autocomplete,
    maxlength,
    required,
    'aria-describedby': errorId,
    'aria-required': required ? 'true' : undefined,
  });
  const error = h('p', { class: 'form-error', id: errorId });
  const row = h(
    'div',
    { class: 'form-row' },
    h('label', { for: id }, required ? label : t('form.optional', { label })),
    input,
    hint ? h('span', { class: 'form-hint' }, hint) : null,
    error,
  );
  const setError = (message) => {
    error.textContent = message ?? '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  input.addEventListener('input', () => setError(null));
  const validate = () => {
    const value = input.value.trim();
    if (required && !value) return missing;
    if (value && (!input.checkValidity() || (format && !format.test(value)))) return invalid;
    return null;
  };
  return { row, input, setError, validate, value: () => input.value.trim() };
}
/**
 * The details section of `campaign` and its inputs: `name`, `email`, `phone` (null unless the
 * campaign collects it) and `all` of them, in the form's order.
 */
export function visitorDetails(campaign) {
  const name = detailInput({
    label: t('form.fullName'),
    missing: t('form.enterName'),
    invalid: t('form.enterValidName'),
    type: 'text',
    autocomplete: 'name',
    required: true,
    maxlength: '200',
  });
  const email = detailInput({
    label: t('form.email'),
    missing: t('form.enterEmail'),
    invalid: t('form.enterValidEmail'),
    type: 'email',
    autocomplete: 'email',
    required: true,
    maxlength: '254',
    hint: t('form.emailHint'),
  });
  const phone = campaign.collectPhone
    ? detailInput({
        label: t('form.phone'),
        missing: t('form.enterPhone'),
        invalid: t('form.enterValidPhone'),
        type: 'tel',
        autocomplete: 'tel',
        required: true,
        maxlength: '32',
        format: /^\+?[0-9 ().-]{3,32}$/,
      })
    : null;
  const all = [name, email, phone].filter(Boolean);
  const section = h(
    'section',
    { class: 'intro', 'aria-labelledby': 'details-title' },
    h('h2', { id: 'details-title' }, t('form.yourDetails')),
    all.map((d) => d.row),
  );
  return { name, email, phone, all, section };
}
