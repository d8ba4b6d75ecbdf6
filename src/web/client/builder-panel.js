// The settings of the selected field in the builder: its type, label, who fills it in, whether
// it is required, its options (dropdown, radio), and removing it. Every change goes straight into
// the field; the page saves them all together.

import { h, nextId } from './dom.js';
import { t } from './i18n.js';
import { typeName } from './builder-canvas.js';

/** A labelled control in the panel. */
function row(label, control, hint) {
  control.id ||= nextId('b');
  const hintEl = hint ? h('p', { class: 'form-hint', id: nextId('bh') }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'form-row' }, h('label', { for: control.id }, label), control, hintEl);
}

/** `partyOptions()`: [{order, name}]; `changed(field)` after an edit; `remove(field)`. */
export function propertiesPanel({ types, partyOptions, changed, remove }) {
  let field = null;
  const heading = h('h2', { id: nextId('bp') }, t('builder.properties'));
  const empty = h('p', { class: 'form-hint' }, t('builder.noSelection'));
  const type = h(
    'select',
    { class: 'input' },
    Object.keys(types).map((name) => h('option', { value: name }, typeName(name))),
  );
  const label = h('input', { class: 'input', type: 'text', maxlength: '200' });
  const assignee = h('select', { class: 'input' });
  const required = h('input', { type: 'checkbox', id: nextId('b') });
  const options = h('textarea', { class: 'input', rows: '4' });
  const optionsRow = row(t('builder.options'), options, t('builder.optionsHint'));
  const removeBtn = h('button', { type: 'button', class: 'btn btn-ghost' }, t('builder.remove'));
  const form = h(
    'div',
    { class: 'builder-form' },
    row(t('builder.typeLabel'), type),
    row(t('builder.label'), label),
    row(t('builder.assignee'), assignee),
    h(
      'div',
      { class: 'check-row' },
      required,
      h('label', { for: required.id }, t('builder.required')),
    ),
    optionsRow,
    removeBtn,
  );
  const element = h(
    'section',
    { class: 'builder-card builder-panel', 'aria-labelledby': heading.id },
    heading,
    empty,
    form,
  );

  const edit = (apply) => () => {
    if (!field) return;
    apply(field);
    changed(field);
  };
  type.addEventListener(
    'change',
    edit((f) => {
      f.type = type.value;
      const takes = types[f.type].options === 'required';
      f.options = takes ? (f.options ?? []) : null;
      if (!takes) f.defaultValue = null;
      optionsRow.hidden = !takes;
    }),
  );
  label.addEventListener(
    'input',
    edit((f) => {
      f.label = label.value;
    }),
  );
  assignee.addEventListener(
    'change',
    edit((f) => {
      f.assignedTo = Number(assignee.value);
    }),
  );
  required.addEventListener(
    'change',
    edit((f) => {
      f.required = required.checked;
    }),
  );
  options.addEventListener(
    'input',
    edit((f) => {
      f.options = options.value
        .split('\n')
        .map((o) => o.trim())
        .filter(Boolean);
    }),
  );
  removeBtn.addEventListener('click', () => field && remove(field));

  /** Shows the settings of `f` (null: none selected). */
  function show(f) {
    field = f;
    empty.hidden = Boolean(f);
    form.hidden = !f;
    if (!f) return;
    type.value = f.type;
    label.value = f.label;
    assignee.replaceChildren(
      ...partyOptions().map((p) => h('option', { value: String(p.order) }, p.name)),
    );
    assignee.value = String(f.assignedTo);
    required.checked = f.required;
    optionsRow.hidden = types[f.type].options !== 'required';
    options.value = (f.options ?? []).join('\n');
  }
  show(null);
  return { element, show };
}
