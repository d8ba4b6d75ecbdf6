// The consent step: when the organization asks signers to consent to electronic records and
// signatures (README "Consent"), the page shows the session's disclosure text before anything of
// the document. "I agree" keeps the consent (POST …/consent); "I do not agree", once confirmed,
// declines with the reason `consent_withdrawn`.

import { finishedSigning } from './frame.js';
import { announce, h, nextId, showMain } from './dom.js';
import { t } from './i18n.js';
import { showState } from './states.js';

/** The reason a decline from this step carries (docs/signer-authentication.md). */
export const CONSENT_WITHDRAWN = 'consent_withdrawn';

/** The disclosure as paragraphs: blank lines separate them, single line breaks stay. */
function paragraphs(text) {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => h('p', {}, p));
}

/** Shows the step; `onDone` runs once the signer agreed; declining shows the declined state. */
export function consentStep({ api, session, onDone }) {
  const { consent } = session;
  const errorId = nextId('consent-err');
  const textId = nextId('consent-text');
  const error = h('p', { class: 'form-error', id: errorId, role: 'alert' });
  const agree = h('button', { type: 'button', class: 'btn btn-primary' }, t('consent.agree'));
  const disagree = h(
    'button',
    { type: 'button', class: 'btn btn-secondary' },
    t('consent.disagree'),
  );
  const buttons = h('div', { class: 'dialog-actions kyc-actions' }, disagree, agree);
  const busy = (on) => {
    for (const b of buttons.querySelectorAll('button')) b.disabled = on;
  };
  const act = async (call, then) => {
    busy(true);
    error.textContent = '';
    try {
      await call();
      await then();
    } catch (err) {
      busy(false);
      error.textContent = err.message;
    }
  };
  agree.addEventListener('click', () => act(() => api.consent(), onDone));

  // Declining ends signing for everyone: asked once more, in place, before it is sent.
  const confirmTitleId = nextId('consent-confirm');
  const confirm = h(
    'div',
    { class: 'consent-confirm', role: 'group', 'aria-labelledby': confirmTitleId, hidden: true },
    h('h2', { id: confirmTitleId, tabindex: '-1' }, t('consent.confirmTitle')),
    h('p', {}, t('consent.confirmExplain')),
    h(
      'div',
      { class: 'dialog-actions kyc-actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-secondary',
          onclick: () => {
            confirm.hidden = true;
            buttons.hidden = false;
            disagree.focus();
          },
        },
        t('consent.back'),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-danger',
          onclick: (e) => {
            e.currentTarget.disabled = true;
            e.currentTarget.textContent = t('decline.declining');
            let result;
            act(
              async () => {
                result = await api.decline(CONSENT_WITHDRAWN);
              },
              () => {
                showState('you_declined', { documentName: session.document.name });
                finishedSigning('declined', result);
              },
            ).finally(() => {
              e.currentTarget.disabled = false;
              e.currentTarget.textContent = t('consent.confirmDecline');
            });
          },
        },
        t('consent.confirmDecline'),
      ),
    ),
  );
  disagree.addEventListener('click', () => {
    buttons.hidden = true;
    confirm.hidden = false;
    confirm.querySelector('h2').focus();
  });

  const section = h(
    'section',
    { class: 'kyc consent', 'aria-labelledby': 'consent-title', 'aria-describedby': errorId },
    h('h1', { id: 'consent-title', tabindex: '-1' }, t('consent.title')),
    h('p', {}, t('consent.intro')),
    h(
      'div',
      {
        class: 'consent-text',
        id: textId,
        // The organization's text keeps its own language and direction.
        lang: consent.locale,
        dir: 'auto',
        tabindex: '0',
        role: 'region',
        'aria-label': t('consent.title'),
      },
      ...paragraphs(consent.text),
    ),
    error,
    buttons,
    confirm,
  );
  showMain(section);
  document.body.dataset.view = 'consent';
  announce(t('consent.title'));
  section.querySelector('h1').focus();
}
