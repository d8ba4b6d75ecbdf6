// The identity step (KYC): before signing, the signer uploads a photo of an identity document;
// the sender reviews it and we email the signer when they can sign.

import { h, nextId, showMain } from './dom.js';

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
    alt: 'Preview of the selected image',
    hidden: true,
  });
  const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Upload and continue');
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
        if (!file) return fail('Choose a photo of your identity document.');
        if (!TYPES.includes(file.type)) return fail('Use a PNG, JPEG or WebP image.');
        if (file.size > limits.identityMaxBytes)
          return fail(`The image is larger than ${maxMb} MB. Choose a smaller photo.`);
        submit.disabled = true;
        submit.textContent = 'Uploading…';
        try {
          await api.identity(file);
          await onDone();
        } catch (err) {
          submit.disabled = false;
          submit.textContent = 'Upload and continue';
          fail(err.message);
        }
      },
    },
    h('h1', { id: 'kyc-title' }, 'Verify your identity'),
    h(
      'p',
      {},
      `${session.document.senderName || 'The sender'} asks signers of “${session.document.name}” to confirm who they are before signing.`,
    ),
    rejected
      ? h(
          'p',
          { class: 'form-error', role: 'alert' },
          'The sender could not accept the image you sent before. Please upload a new, clear photo.',
        )
      : null,
    h(
      'div',
      { class: 'form-row' },
      h('label', { for: inputId }, 'Photo of your passport, ID card or driving licence'),
      input,
      h(
        'span',
        { class: 'form-hint', id: `${inputId}-hint` },
        `PNG, JPEG or WebP, up to ${maxMb} MB. Make sure your name and photo are readable.`,
      ),
    ),
    preview,
    error,
    h('div', { class: 'dialog-actions kyc-actions' }, submit),
  );
  showMain(form);
  document.body.dataset.view = 'identity';
}
