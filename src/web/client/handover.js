// Hand-over (README "Reassign"): the signer names someone to sign in their place. Shown only when
// the session says so (`canReassign`); the API refuses anything else anyway.

import { h, nextId } from './dom.js';
import { busy, modal } from './dialogs.js';
import { t } from './i18n.js';

/** Mirrors the API's bounds (src/modules/signing/reassign.schemas.ts). */
const NAME_MAX = 200;
const EMAIL_MAX = 254;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function row(label, input, hint) {
  return h(
    'div',
    { class: 'form-row' },
    h('label', { for: input.id }, label),
    input,
    hint ? h('span', { class: 'form-hint' }, hint) : null,
  );
}

/**
 * Asks for the new person's name and email and a reason, then hands over through
 * `reassign({name, email, reason})`. Resolves to the API's result, or null when the signer
 * changes their mind. `ownEmail`: the signer's own address, which cannot take over.
 */
export function openHandOverDialog({ maxChars, ownEmail, reassign }) {
  return new Promise((resolve) => {
    const errorId = nextId('handover-err');
    let result = null;
    const input = (attrs) =>
      h('input', {
        class: 'input',
        dir: 'auto',
        'aria-describedby': errorId,
        required: true,
        ...attrs,
      });
    const name = input({
      id: nextId('handover-name'),
      maxlength: String(NAME_MAX),
      autocomplete: 'off',
    });
    const email = input({
      id: nextId('handover-email'),
      type: 'email',
      inputmode: 'email',
      maxlength: String(EMAIL_MAX),
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const reason = h('textarea', {
      dir: 'auto',
      class: 'input',
      id: nextId('handover-reason'),
      maxlength: String(maxChars),
      required: true,
      'aria-describedby': errorId,
      rows: '3',
    });
    const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, t('handOver.submit'));
    const refuse = (control, key) => {
      error.textContent = t(key);
      control.setAttribute('aria-invalid', 'true');
      control.focus();
    };
    const dialog = modal(
      t('handOver.title'),
      [
        h('p', {}, t('handOver.explain')),
        row(t('handOver.name'), name),
        row(t('handOver.email'), email),
        row(t('handOver.reason'), reason, t('handOver.reasonHint', { maxChars })),
        error,
      ],
      [
        h(
          'button',
          { type: 'button', class: 'btn btn-secondary', onclick: () => dialog.close() },
          t('handOver.cancel'),
        ),
        submit,
      ],
      async () => {
        for (const control of [name, email, reason]) control.removeAttribute('aria-invalid');
        const body = {
          name: name.value.trim(),
          email: email.value.trim(),
          reason: reason.value.trim(),
        };
        if (!body.name) return refuse(name, 'handOver.nameMissing');
        if (!EMAIL.test(body.email)) return refuse(email, 'handOver.emailInvalid');
        if (body.email.toLowerCase() === String(ownEmail).toLowerCase())
          return refuse(email, 'handOver.emailSame');
        if (!body.reason) return refuse(reason, 'handOver.reasonMissing');
        error.textContent = '';
        busy(submit, true, t('handOver.sending'));
        try {
          result = await reassign(body);
          dialog.close();
        } catch (err) {
          error.textContent = err.message;
          busy(submit, false, t('handOver.submit'));
        }
      },
    );
    for (const control of [name, email, reason])
      control.addEventListener('input', () => {
        error.textContent = '';
        control.removeAttribute('aria-invalid');
      });
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    dialog.showModal();
    name.focus();
  });
}
