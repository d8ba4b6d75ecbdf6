// The access-code step: a signer whose sender set an access code enters it before anything of the
// document is shown. The code buys a signing session (one hour) that the page keeps in
// sessionStorage (or only in memory where storage is blocked, as in some embedding iframes) and
// sends as X-Signing-Session on every call; never a cookie. Its words are the catalog's `access.*`.

import { announce, h, nextId, showMain } from './dom.js';
import { t } from './i18n.js';

const storageKey = (token) => `signet:signing-session:${token.slice(0, 16)}`;

/** Where the page keeps the session: sessionStorage when the browser allows it, else memory. */
export function sessionStore(token) {
  let memory = null;
  return {
    get() {
      try {
        const raw = sessionStorage.getItem(storageKey(token));
        if (raw) return raw;
      } catch {
        // Storage blocked (third-party iframe, privacy mode): memory only.
      }
      return memory;
    },
    set(value) {
      memory = value;
      try {
        if (value === null) sessionStorage.removeItem(storageKey(token));
        else sessionStorage.setItem(storageKey(token), value);
      } catch {
        // Memory only.
      }
    },
  };
}

/**
 * Shows the step; `onDone` runs once the code was accepted (the session is stored), or with the
 * error when the link got locked. Nothing of the document is known yet: the API shows nothing
 * without the code.
 */
export function accessStep({ api, store, limits, onDone }) {
  const inputId = nextId('access-code');
  const errorId = nextId('access-err');
  const input = h('input', {
    class: 'input access-input',
    id: inputId,
    name: 'access-code',
    type: 'text',
    // A code given for this one document: not a password to save, nor a one-time code from SMS.
    autocomplete: 'off',
    autocapitalize: 'off',
    autocorrect: 'off',
    spellcheck: 'false',
    maxlength: String(limits.accessCodeMaxChars),
    required: true,
    'aria-describedby': `${inputId}-hint ${errorId}`,
  });
  const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, t('access.submit'));
  const fail = (message) => {
    error.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  const form = h(
    'form',
    {
      class: 'kyc access',
      novalidate: true,
      'aria-labelledby': 'access-title',
      onsubmit: async (e) => {
        e.preventDefault();
        const code = input.value.trim();
        if (!code) return fail(t('access.empty'));
        submit.disabled = true;
        submit.textContent = t('access.checking');
        try {
          const { session } = await api.access(code);
          store.set(session);
          await onDone();
        } catch (err) {
          submit.disabled = false;
          submit.textContent = t('access.submit');
          if (err.code === 'link_locked') return onDone(err);
          input.value = '';
          fail(err.message);
        }
      },
    },
    h('h1', { id: 'access-title' }, t('access.title')),
    h('p', {}, t('access.intro')),
    h(
      'div',
      { class: 'form-row' },
      h('label', { for: inputId }, t('access.label')),
      input,
      h('span', { class: 'form-hint', id: `${inputId}-hint` }, t('access.hint')),
    ),
    error,
    h('div', { class: 'dialog-actions kyc-actions' }, submit),
  );
  showMain(form);
  document.body.dataset.view = 'access';
  announce(t('access.title'));
  input.focus();
}
