// Modal steps: decline with a reason, and the emailed one-time code. Both use <dialog>, which
// traps focus, closes on Escape and returns focus to the opener.

import { h, nextId } from './dom.js';
import { formatTime, t } from './i18n.js';

/** A modal form: a title, its body, its action buttons; `onSubmit` runs on submit. */
export function modal(titleText, body, actions, onSubmit) {
  const titleId = nextId('dlg-title');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId },
    h(
      'form',
      {
        method: 'dialog',
        novalidate: true,
        onsubmit: (e) => {
          e.preventDefault();
          onSubmit();
        },
      },
      h('div', { class: 'dialog-body' }, h('h2', { id: titleId }, titleText), ...body),
      h('div', { class: 'dialog-actions' }, ...actions),
    ),
  );
  document.body.append(dialog);
  return dialog;
}

export const busy = (button, on, text) => {
  button.disabled = on;
  if (text) button.textContent = text;
};

/**
 * Asks for a reason and declines through `decline(reason)`. Resolves to the API's result,
 * or null when the signer changes their mind.
 */
export function openDeclineDialog({ maxChars, decline }) {
  return new Promise((resolve) => {
    const reasonId = nextId('reason');
    const errorId = nextId('reason-err');
    let result = null;
    const reason = h('textarea', {
      dir: 'auto',
      class: 'input',
      id: reasonId,
      maxlength: String(maxChars),
      required: true,
      'aria-describedby': errorId,
      rows: '4',
    });
    const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
    const submit = h('button', { type: 'submit', class: 'btn btn-danger' }, t('decline.button'));
    const dialog = modal(
      t('decline.title'),
      [
        h('p', {}, t('decline.explain')),
        h(
          'div',
          { class: 'form-row' },
          h('label', { for: reasonId }, t('decline.reason')),
          reason,
          h('span', { class: 'form-hint' }, t('decline.reasonHint', { maxChars })),
        ),
        error,
      ],
      [
        h(
          'button',
          { type: 'button', class: 'btn btn-secondary', onclick: () => dialog.close() },
          t('decline.keepSigning'),
        ),
        submit,
      ],
      async () => {
        const text = reason.value.trim();
        if (!text) {
          error.textContent = t('decline.reasonMissing');
          reason.setAttribute('aria-invalid', 'true');
          reason.focus();
          return;
        }
        reason.removeAttribute('aria-invalid');
        error.textContent = '';
        busy(submit, true, t('decline.declining'));
        try {
          result = await decline(text);
          dialog.close();
        } catch (err) {
          error.textContent = err.message;
          busy(submit, false, t('decline.button'));
        }
      },
    );
    reason.addEventListener('input', () => {
      error.textContent = '';
      reason.removeAttribute('aria-invalid');
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    dialog.showModal();
    reason.focus();
  });
}

/**
 * The one-time-code step: sends a code by email (or by SMS to the masked `phone`) on request, then hands the 6 digits to
 * `confirm(code)` (which completes the signing). Resolves to confirm's result, or null if closed.
 * `confirm` may throw; an OTP error keeps the dialog open with the message.
 */
export function openOtpDialog({ email, phone, digits, requestOtp, confirm }) {
  return new Promise((resolve) => {
    const codeId = nextId('otp');
    const errorId = nextId('otp-err');
    let result = null;
    let resendTimer;

    const sms = Boolean(phone);
    const sendLabel = sms ? t('otp.sendSms') : t('otp.send');
    const info = h(
      'p',
      { 'aria-live': 'polite' },
      sms ? t('otp.explainSms', { digits, phone }) : t('otp.explain', { digits, email }),
    );
    const sendButton = h('button', { type: 'button', class: 'btn btn-secondary' }, sendLabel);
    const code = h('input', {
      class: 'input otp-input',
      id: codeId,
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      pattern: `[0-9]{${digits}}`,
      maxlength: String(digits),
      'aria-describedby': errorId,
    });
    const codeRow = h(
      'div',
      { class: 'form-row', hidden: true },
      h('label', { for: codeId }, t('otp.codeLabel', { digits })),
      code,
    );
    const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
    const submit = h(
      'button',
      { type: 'submit', class: 'btn btn-primary', disabled: true },
      t('otp.confirm'),
    );

    const dialog = modal(
      t('otp.title'),
      [info, h('div', { class: 'form-row' }, sendButton), codeRow, error],
      [
        h(
          'button',
          { type: 'button', class: 'btn btn-secondary', onclick: () => dialog.close() },
          t('otp.cancel'),
        ),
        submit,
      ],
      async () => {
        const value = code.value.trim();
        if (!new RegExp(`^[0-9]{${digits}}$`).test(value)) {
          error.textContent = sms
            ? t('otp.enterDigitsSms', { digits })
            : t('otp.enterDigits', { digits });
          code.setAttribute('aria-invalid', 'true');
          code.focus();
          return;
        }
        busy(submit, true, t('signing.signing'));
        try {
          result = await confirm(value);
          dialog.close();
        } catch (err) {
          error.textContent = err.message;
          code.setAttribute('aria-invalid', 'true');
          busy(submit, false, t('otp.confirm'));
          code.select();
          code.focus();
        }
      },
    );

    sendButton.addEventListener('click', async () => {
      busy(sendButton, true, t('otp.sending'));
      error.textContent = '';
      try {
        const sent = await requestOtp();
        const time = formatTime(sent.expiresAt);
        info.textContent =
          sent.method === 'sms'
            ? t('otp.sentSms', { digits, phone: sent.sentTo, time })
            : t('otp.sent', { digits, email: sent.sentTo, time });
        codeRow.hidden = false;
        submit.disabled = false;
        code.focus();
        // Resending is allowed from `resendAfter`; until then the button says how long to wait.
        const until = new Date(sent.resendAfter).getTime();
        const tick = () => {
          const left = Math.ceil((until - Date.now()) / 1000);
          if (left > 0) {
            busy(sendButton, true, t('otp.resendIn', { seconds: left }));
            resendTimer = setTimeout(tick, 1000);
          } else busy(sendButton, false, t('otp.resend'));
        };
        tick();
      } catch (err) {
        error.textContent = err.message;
        busy(sendButton, false, sendLabel);
      }
    });
    code.addEventListener('input', () => {
      code.value = code.value.replace(/\D/g, '').slice(0, digits);
      code.removeAttribute('aria-invalid');
      error.textContent = '';
    });
    dialog.addEventListener('close', () => {
      clearTimeout(resendTimer);
      dialog.remove();
      resolve(result);
    });
    dialog.showModal();
    sendButton.focus();
  });
}
