// One control per field of this signer, absolutely positioned over its page in percent of the
// page (x, y, width, height from the top-left), so it stays in place at any width.

import { h, nextId } from './dom.js';
import { controlOf } from './field-types.js';
import { fileControl } from './file-field.js';
import { textControl } from './text-field.js';
import { typedSignatureClass } from './typed-signature.js';
import { t } from './i18n.js';

const TYPE_LABELS = {
  signature: 'field.signature',
  initials: 'field.initials',
  name: 'field.name',
  email: 'field.email',
  date: 'field.date',
  text: 'field.text',
  number: 'field.number',
  checkbox: 'field.checkbox',
  dropdown: 'field.dropdown',
  radio: 'field.radio',
  file: 'field.file',
};

const PEN = () => {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '2');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
};

/** Reading order: page, then top to bottom, then left to right. This is also the tab order. */
export function sortFields(fields) {
  return [...fields].sort((a, b) => a.page - b.page || a.y - b.y || a.x - b.x);
}

export function fieldName(field) {
  return field.label?.trim() || t(TYPE_LABELS[field.type] ?? 'field.generic');
}

/**
 * Builds the control of one field. `ctx` gives the signer (to prefill name and email) and
 * `onSign(control)` (opens the pad for signature and initials fields).
 * Returns {field, element, focusTarget, value(), filled(), validate(), setError(), setMark()}.
 */
export function createFieldControl(field, ctx) {
  const name = fieldName(field);
  const errorId = nextId('err');
  const inputId = nextId('fld');
  const accessibleName = field.required ? t('field.required', { name }) : name;
  // Messages of fields on the right half open leftwards, so they stay on the page.
  const error = h('span', {
    class: `field-error${field.x + field.width / 2 > 50 ? ' align-right' : ''}`,
    id: errorId,
    hidden: true,
  });
  const element = h('div', {
    class: `field field-${field.type}${field.required ? ' is-required' : ''}${field.readOnly ? ' is-readonly' : ''}`,
    dataset: { fieldId: field.id, fieldType: field.type },
  });
  element.style.left = `${field.x}%`;
  element.style.top = `${field.y}%`;
  element.style.width = `${field.width}%`;
  element.style.height = `${field.height}%`;

  const common = {
    id: inputId,
    class: 'field-box',
    'aria-label': accessibleName,
    'aria-describedby': errorId,
    'aria-required': field.required ? 'true' : undefined,
    required: field.required && !field.readOnly,
    disabled: field.readOnly,
    title: name,
  };
  // A button cannot be required (ARIA 1.2): its name already says "(required)".
  const buttonProps = { ...common, 'aria-required': undefined, required: undefined };
  const initial = field.defaultValue ?? '';
  let control;

  switch (controlOf(field)) {
    case 'signature':
    case 'initials':
      control = signatureControl(field, element, buttonProps, ctx);
      break;
    case 'file':
      control = fileControl(field, element, buttonProps, ctx);
      break;
    case 'checkbox': {
      const input = h('input', {
        ...common,
        class: undefined,
        type: 'checkbox',
        checked: /^(true|1|yes|on|x)$/i.test(initial),
      });
      const box = h('label', { class: 'field-box field-check', for: inputId }, input);
      element.append(box);
      control = {
        focusTarget: input,
        value: () => input.checked,
        filled: () => input.checked,
        listen: (fn) => input.addEventListener('change', fn),
      };
      break;
    }
    case 'dropdown': {
      const select = h(
        'select',
        common,
        h('option', { value: '' }, field.placeholder || t('field.choosePlaceholder')),
        (field.options ?? []).map((o) => h('option', { value: o }, o)),
      );
      if (initial && (field.options ?? []).includes(initial)) select.value = initial;
      element.append(select);
      control = {
        focusTarget: select,
        value: () => select.value,
        filled: () => select.value !== '',
        listen: (fn) => select.addEventListener('change', fn),
      };
      break;
    }
    case 'radio': {
      const group = `radio-${field.id}`;
      const inputs = (field.options ?? []).map((o) =>
        h('input', {
          type: 'radio',
          name: group,
          value: o,
          checked: o === initial,
          disabled: field.readOnly,
          required: field.required && !field.readOnly,
        }),
      );
      const set = h(
        'fieldset',
        {
          class: 'field-box field-radios',
          'aria-describedby': errorId,
          role: 'radiogroup',
          'aria-required': field.required ? 'true' : undefined,
        },
        h('legend', { class: 'visually-hidden' }, accessibleName),
        inputs.map((input, i) => h('label', {}, input, h('span', {}, field.options[i]))),
      );
      set.style.setProperty('--rows', String(Math.max(1, inputs.length)));
      element.append(set);
      const checked = () => inputs.find((i) => i.checked);
      control = {
        focusTarget: inputs[0],
        value: () => checked()?.value ?? '',
        filled: () => Boolean(checked()),
        listen: (fn) => {
          for (const i of inputs) i.addEventListener('change', fn);
        },
        invalidTarget: set,
      };
      break;
    }
    default:
      control = textControl(field, element, common, ctx, name);
  }

  element.append(error);
  if (field.required && !field.readOnly)
    element.append(h('span', { class: 'field-required-mark', 'aria-hidden': 'true' }, '*'));

  const setError = (message) => {
    error.textContent = message ?? '';
    error.hidden = !message;
    element.classList.toggle('is-invalid', Boolean(message));
    const target = control.invalidTarget ?? control.focusTarget;
    if (message) target?.setAttribute('aria-invalid', 'true');
    else target?.removeAttribute('aria-invalid');
  };
  const refresh = () => element.classList.toggle('is-filled', control.filled());
  control.listen?.(() => {
    refresh();
    if (element.classList.contains('is-invalid')) setError(validate());
    ctx.onChange();
  });

  /** Returns the problem with this field, or null. */
  function validate() {
    if (field.readOnly) return null;
    if (field.required && !control.filled()) {
      if (field.type === 'signature') return t('field.signHere');
      if (field.type === 'initials') return t('field.initialHere');
      if (field.type === 'checkbox') return t('field.tickBox');
      if (field.type === 'dropdown' || field.type === 'radio') return t('field.chooseOption');
      if (field.type === 'file') return control.check?.() ?? t('field.attachHere');
      return t('field.requiredField');
    }
    return control.check?.() ?? null;
  }

  refresh();
  return { field, name, element, ...control, refresh, setError, validate };
}

/** Signature and initials fields: a button that opens the pad, then shows the adopted mark. */
function signatureControl(field, element, common, ctx) {
  const isInitials = field.type === 'initials';
  const label = isInitials ? t('field.initialButton') : t('field.signButton');
  const button = h(
    'button',
    { ...common, type: 'button', class: 'field-box field-sign', 'aria-haspopup': 'dialog' },
    PEN(),
    h('span', {}, label),
  );
  element.append(button);
  let mark = null;
  const control = {
    focusTarget: button,
    value: () => mark,
    filled: () => mark !== null,
    /** Shows an adopted mark ({kind, value}) in the field. */
    setMark(next) {
      mark = next;
      if (!next) {
        button.replaceChildren(PEN(), h('span', {}, label));
        button.setAttribute('aria-label', common['aria-label']);
      } else {
        const shown =
          next.kind === 'drawn'
            ? h('img', { src: next.value, alt: '' })
            : h('span', { class: `typed ${typedSignatureClass(next.value)}` }, next.value);
        button.replaceChildren(shown);
        button.setAttribute(
          'aria-label',
          t(isInitials ? 'field.initialedChange' : 'field.signedChange', {
            name: fieldName(field),
          }),
        );
      }
      element.classList.toggle('is-filled', Boolean(next));
    },
  };
  button.addEventListener('click', () => ctx.onSign(field));
  return control;
}

/**
 * A control for each field over its page (`pages` from pdf-view.js's renderPages), in the order of
 * `fields`; a field on a page the PDF lacks gets none. Returns the controls, and them by field id.
 */
export function placeFields(fields, pages, ctx) {
  const controls = [];
  for (const field of fields) {
    const page = pages[field.page - 1];
    if (!page) continue;
    const control = createFieldControl(field, ctx);
    page.layer.append(control.element);
    controls.push(control);
  }
  return { controls, byId: new Map(controls.map((c) => [c.field.id, c])) };
}
