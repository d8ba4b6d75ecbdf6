// The identity step (KYC): before signing, the signer uploads a photo of an identity document;
// the sender reviews it and we email the signer when they can sign.

import { h, nextId, showMain } from './dom.js';
import { t } from './i18n.js';

const TYPES = ['image/png', 'image/jpeg', 'image/webp'];

export function identityStep({ api, session, limits, onDone }) {
  const rejected = session.verification.status === 'rejected';
  const inputId = nextId('id-file');
  const errorId = nextId('id-err');
  const maxMb = Math.round(limits.identityMaxBytes / (1024 * 1024));
  const input = h('input', {
    class: 'input',
    type: 'file',
    id: inputId,
    accept: TYPES.join(','),
    capture: 'environment',
    'aria-describedby': `${errorId} ${inputId}-hint`,
  });
  const preview = h('img', {
    class: 'kyc-preview',
    alt: t('identity.preview'),
    hidden: true,
  });
  const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, t('identity.submit'));
  let objectUrl;

  input.addEventListener('change', () => {
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    const file = input.files?.[0];
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    if (file && TYPES.includes(file.type)) {
      objectUrl = URL.createObjectURL(file);
      preview.src = objectUrl;
      preview.hidden = false;
    } else preview.hidden = true;
  });

  const fail = (message) => {
    error.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };

  const form = h(
    'form',
    {
      class: 'kyc',
      novalidate: true,
      'aria-labelledby': 'kyc-title',
      onsubmit: async (e) => {
        e.preventDefault();
        const file = input.files?.[0];
        if (!file) return fail(t('identity.missing'));
        if (!TYPES.includes(file.type)) return fail(t('identity.badType'));
        if (file.size > limits.identityMaxBytes) return fail(t('identity.tooLarge', { maxMb }));
        submit.disabled = true;
        submit.textContent = t('identity.uploading');
        try {
          await api.identity(file);
          await onDone();
        } catch (err) {
          submit.disabled = false;
          submit.textContent = t('identity.submit');
          fail(err.message);
        }
      },
    },
    h('h1', { id: 'kyc-title' }, t('identity.title')),
    h(
      'p',
      {},
      t('identity.explain', {
        senderName: session.document.senderName || t('identity.theSender'),
        documentName: session.document.name,
      }),
    ),
    rejected ? h('p', { class: 'form-error', role: 'alert' }, t('identity.rejected')) : null,
    h(
      'div',
      { class: 'form-row' },
      h('label', { for: inputId }, t('identity.fileLabel')),
      input,
      h('span', { class: 'form-hint', id: `${inputId}-hint` }, t('identity.fileHint', { maxMb })),
    ),
    preview,
    error,
    h('div', { class: 'dialog-actions kyc-actions' }, submit),
  );
  showMain(form);
  document.body.dataset.view = 'identity';
}
