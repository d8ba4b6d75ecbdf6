// The signing page: loads the session of the link's token, then shows either a full-page state
// (not your turn, already signed, cancelled…) or the document with this signer's fields.

import { accessStep, sessionStore } from './access-step.js';
import { signingApi } from './api.js';
import { consentStep } from './consent-step.js';
import { h } from './dom.js';
import { identityStep } from './identity.js';
import { signingView } from './signing-view.js';
import { showState, stateOfError, stateOfSession } from './states.js';
import { t } from './i18n.js';
import { frameIds, postError, postOnce } from './frame.js';

/** Mirrors SIGNING_LIMITS of the API (src/modules/signing/signing.schemas.ts). */
const LIMITS = {
  valueMaxChars: 10000,
  declineReasonMaxChars: 1000,
  typedSignatureMaxChars: 200,
  otpDigits: 6,
  identityMaxBytes: 10 * 1024 * 1024,
  accessCodeMaxChars: 64,
};

const token = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
const pdfjsBase = document.body.dataset.pdfjs;
const store = sessionStore(token);
const api = signingApi(token, store);

/** `refused`: an error the access step ended with (a locked link), shown as the page's state. */
async function start(refused) {
  let session;
  try {
    if (refused) throw refused;
    session = await api.get();
  } catch (err) {
    // The sender set an access code: nothing of the document until it is entered.
    if (err.code === 'access_code_required') {
      store.set(null);
      return accessStep({ api, store, limits: LIMITS, onDone: start });
    }
    postError(err);
    const { state, text } = stateOfError(err);
    return showState(state, { text });
  }
  const { document: doc } = session;
  document.title = t('page.titleDocument', { documentName: doc.name });
  // No top bar when framed (`?embed=1`).
  const topbarDoc = document.getElementById('topbar-doc');
  if (topbarDoc) topbarDoc.textContent = doc.name;
  frameIds(doc.id, session.signer.id);
  postOnce('ready');

  const state = stateOfSession(session);
  if (state)
    return showState(state, {
      documentName: doc.name,
      action: state === 'not_your_turn' ? signingOrder(session) : undefined,
    });
  // The disclosure comes before the document: nothing of it until the signer agreed.
  if (session.consent?.required && !session.consent.given)
    return consentStep({ api, session, onDone: start });
  const { verification } = session;
  if (
    verification.required &&
    (verification.status === 'required' || verification.status === 'rejected')
  ) {
    return identityStep({ api, session, limits: LIMITS, onDone: start });
  }
  const view = await signingView(session, { api, pdfjsBase, limits: LIMITS, refreshState });
  postOnce('viewed');
  return view;
}

/** Who signs before and after this signer, so "not your turn" says who is being waited for. */
function signingOrder(session) {
  const label = {
    completed: t('order.signed'),
    declined: t('order.declined'),
    viewed: t('order.signingNow'),
    sent: t('order.signingNow'),
  };
  const rows = session.recipients
    .filter((r) => r.role !== 'cc')
    .sort((a, b) => a.order - b.order)
    .map((r) =>
      h(
        'li',
        { class: r.order === session.signer.order ? 'is-you' : undefined },
        h(
          'span',
          { class: 'order-name' },
          r.order === session.signer.order ? t('order.you', { name: r.name }) : r.name,
        ),
        h(
          'span',
          { class: `order-status status-${r.status}` },
          r.order === session.signer.order
            ? t('order.waiting')
            : (label[r.status] ?? t('order.waiting')),
        ),
      ),
    );
  return h('div', { class: 'signing-order' }, h('h2', {}, t('order.title')), h('ol', {}, rows));
}

/** Re-reads the session after a refusal that may mean the document moved on (cancelled, signed elsewhere). */
async function refreshState() {
  try {
    const session = await api.get();
    const state = stateOfSession(session);
    if (state) {
      showState(state, { documentName: session.document.name });
      return true;
    }
  } catch (err) {
    // The hour of the access code's session ended while the signer was filling the document.
    if (err.code === 'access_code_required') {
      await start();
      return true;
    }
    const { state, text } = stateOfError(err);
    showState(state, { text });
    return true;
  }
  return false;
}

start().catch((err) => {
  console.error(err);
  postError(err);
  showState('error');
});
