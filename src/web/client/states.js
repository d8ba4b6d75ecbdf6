// Full-page states: every way the page can end up not showing the document, as a readable message.

import { h, showMain, announce } from './dom.js';
import { t } from './i18n.js';

const STATES = {
  invalid: {
    tone: 'error',
    title: 'state.invalidTitle',
    text: 'state.invalidText',
  },
  not_your_turn: {
    tone: 'wait',
    title: 'state.notYourTurnTitle',
    text: 'state.notYourTurnText',
  },
  signed: {
    tone: 'success',
    title: 'state.signedTitle',
    text: 'state.signedText',
  },
  you_declined: {
    tone: 'declined',
    title: 'state.youDeclinedTitle',
    text: 'state.youDeclinedText',
  },
  completed: {
    tone: 'success',
    title: 'state.completedTitle',
    text: 'state.completedText',
  },
  cancelled: {
    tone: 'error',
    title: 'state.cancelledTitle',
    text: 'state.cancelledText',
  },
  expired: {
    tone: 'error',
    title: 'state.expiredTitle',
    text: 'state.expiredText',
  },
  declined: {
    tone: 'declined',
    title: 'state.declinedTitle',
    text: 'state.declinedText',
  },
  handed_over: {
    tone: 'success',
    title: 'state.handedOverTitle',
    text: 'state.handedOverText',
  },
  link_replaced: {
    tone: 'error',
    title: 'state.linkReplacedTitle',
    text: 'state.linkReplacedText',
  },
  action_required: {
    tone: 'wait',
    title: 'state.actionRequiredTitle',
    text: 'state.actionRequiredText',
  },
  identity_pending: {
    tone: 'wait',
    title: 'state.identityPendingTitle',
    text: 'state.identityPendingText',
  },
  cc: {
    tone: 'success',
    title: 'state.ccTitle',
    text: 'state.ccText',
  },
  done: {
    tone: 'success',
    title: 'state.doneTitle',
    text: 'state.doneText',
  },
  done_all: {
    tone: 'success',
    title: 'state.doneTitle',
    text: 'state.doneAllText',
  },
  closed: {
    tone: 'error',
    title: 'state.closedTitle',
    text: 'state.closedText',
  },
  locked: {
    tone: 'error',
    title: 'state.lockedTitle',
    text: 'state.lockedText',
  },
  rate_limited: {
    tone: 'error',
    title: 'state.rateLimitedTitle',
    text: 'state.rateLimitedText',
  },
  error: {
    tone: 'error',
    title: 'state.errorTitle',
    text: 'state.errorText',
  },
};

/** Shows a full-page state; `extra` replaces the text (e.g. the server's own sentence). */
export function showState(name, { text, action, documentName } = {}) {
  const state = STATES[name] ?? STATES.error;
  const children = [
    h('div', { class: 'state-icon', 'aria-hidden': 'true' }),
    h('h1', { id: 'state-title' }, t(state.title)),
  ];
  if (documentName) children.push(h('p', { class: 'state-doc' }, h('strong', {}, documentName)));
  children.push(h('p', {}, text ?? t(state.text)));
  if (action) children.push(action);
  const card = h(
    'section',
    {
      class: `state-card state-${state.tone}`,
      'aria-labelledby': 'state-title',
      dataset: { state: name },
    },
    ...children,
  );
  document.querySelector('.actionbar')?.remove();
  delete document.body.dataset.view;
  showMain(card);
  announce(t(state.title));
}

/** The state a session is in when the signer cannot (or no longer needs to) fill the document. */
export function stateOfSession(session) {
  const { document: doc, signer } = session;
  if (signer.status === 'completed') return doc.status === 'completed' ? 'completed' : 'signed';
  if (signer.status === 'declined') return 'you_declined';
  if (['completed', 'cancelled', 'expired', 'declined'].includes(doc.status)) return doc.status;
  if (signer.status === 'cancelled') return 'cancelled';
  if (signer.role === 'cc') return 'cc';
  if (session.verification.required && session.verification.status === 'pending')
    return 'identity_pending';
  if (doc.status === 'action_required') return 'action_required';
  if (!session.isYourTurn) return 'not_your_turn';
  return null;
}

// The API refuses a finished document or signer with 409 `invalid_state` and a sentence saying
// why (src/modules/signing/signing-rules.ts); the sentence picks the page's state. Statuses in
// `details`, when the API sends them, take precedence over the wording.
const CLOSED = [
  [/already signed/i, 'signed'],
  [/you declined/i, 'you_declined'],
  [/withdrawn|cancelled/i, 'cancelled'],
  [/expired/i, 'expired'],
  [/was declined/i, 'declined'],
  [/completed/i, 'completed'],
  [/\bcc\b|copy/i, 'cc'],
];

/** The state for an error of the session request: `{state, text?}` (text: the server's sentence when no state fits). */
export function stateOfError(err) {
  if (err.code === 'link_locked') return { state: 'locked' };
  // 410: the signer handed over to someone else, who got a link of their own.
  if (err.code === 'link_replaced') return { state: 'link_replaced' };
  // 400: the token is not even shaped like one; 403: forged, replaced or expired; 404: gone.
  if ([400, 401, 403, 404].includes(err.status)) return { state: 'invalid' };
  if (err.status === 429) return { state: 'rate_limited' };
  if (err.code === 'not_your_turn') return { state: 'not_your_turn' };
  if (err.code === 'verification_required') return { state: 'identity_pending' };
  if (err.status === 409) {
    const detail = (err.details ?? []).find((d) => d && (d.signerStatus || d.documentStatus));
    if (detail) {
      const fromStatus = stateOfSession({
        document: { status: detail.documentStatus ?? 'pending' },
        signer: { status: detail.signerStatus ?? 'sent', role: 'signer' },
        verification: { required: false },
        isYourTurn: true,
      });
      if (fromStatus) return { state: fromStatus };
    }
    const match = CLOSED.find(([re]) => re.test(err.message));
    if (match) return { state: match[1] };
    // The API's sentence is English; the page says it in its own words.
    return { state: 'closed' };
  }
  return { state: 'error' };
}

/** Why the campaign page's form takes nothing (paused, closed, expired, full, unknown link), as a full page. */
export function showFormUnavailable(err) {
  if (err.status === 404 || err.status === 400)
    return showState('invalid', {
      text: t('state.formNotFoundText'),
    });
  if (err.status === 429) return showState('rate_limited');
  // The API's sentences are English; the page says why in its own words, from the reason the
  // API gives (paused, full, expired, closed).
  if (err.status === 409) {
    const reason = (err.details ?? []).find((d) => d?.reason)?.reason;
    const known = ['paused', 'full', 'expired', 'closed'].includes(reason);
    return showState('closed', known ? { text: t(`campaign.${reason}Text`) } : {});
  }
  return showState('error');
}
