// Full-page states: every way the page can end up not showing the document, as a readable message.

import { h, showMain, announce } from './dom.js';

const STATES = {
  invalid: {
    tone: 'error',
    title: 'This signing link is not valid',
    text: 'It may have been replaced by a newer link or copied incompletely. Open the latest email from the sender, or ask them for a new link.',
  },
  not_your_turn: {
    tone: 'wait',
    title: 'It’s not your turn yet',
    text: 'Someone earlier in the signing order still has to sign. We will email you as soon as it is your turn; you can close this page.',
  },
  signed: {
    tone: 'success',
    title: 'You have already signed this document',
    text: 'Thank you. Everyone will receive the final copy by email once all signers have finished.',
  },
  you_declined: {
    tone: 'declined',
    title: 'You declined to sign',
    text: 'The sender has been told. If this was a mistake, contact them to send the document again.',
  },
  completed: {
    tone: 'success',
    title: 'This document is complete',
    text: 'Everyone has signed. The final copy has been sent to all parties.',
  },
  cancelled: {
    tone: 'error',
    title: 'This document was cancelled',
    text: 'The sender withdrew this signing request. There is nothing for you to do.',
  },
  expired: {
    tone: 'error',
    title: 'This document has expired',
    text: 'The signing deadline has passed. Contact the sender if you still need to sign.',
  },
  declined: {
    tone: 'declined',
    title: 'This document was declined',
    text: 'A signer declined to sign, so signing has ended and nothing more can be signed. The sender has been told.',
  },
  action_required: {
    tone: 'wait',
    title: 'Signing is paused',
    text: 'The sender needs to take care of something before signing can continue. We will email you when you can sign.',
  },
  identity_pending: {
    tone: 'wait',
    title: 'Your identity is being reviewed',
    text: 'Thank you for your document. The sender will review it and we will email you when you can sign.',
  },
  cc: {
    tone: 'success',
    title: 'You will receive a copy',
    text: 'You are copied on this document and do not need to sign. We will email you the final copy when everyone has signed.',
  },
  done: {
    tone: 'success',
    title: 'You’re done. Thank you!',
    text: 'Your signature has been recorded. We will email you the final copy once everyone has signed.',
  },
  done_all: {
    tone: 'success',
    title: 'You’re done. Thank you!',
    text: 'Your signature has been recorded and everyone has now signed. We will email you the final, signed copy shortly.',
  },
  closed: {
    tone: 'error',
    title: 'Signing is closed',
    text: 'This document can no longer be signed with this link.',
  },
  locked: {
    tone: 'error',
    title: 'This link is locked',
    text: 'Too many wrong codes were entered with it. Ask the sender for a new link; it will work as soon as they send it.',
  },
  rate_limited: {
    tone: 'error',
    title: 'Too many attempts',
    text: 'Please wait a minute, then reload this page.',
  },
  error: {
    tone: 'error',
    title: 'Something went wrong',
    text: 'We could not load this document. Please reload the page in a moment.',
  },
};

/** Shows a full-page state; `extra` replaces the text (e.g. the server's own sentence). */
export function showState(name, { text, action, documentName } = {}) {
  const state = STATES[name] ?? STATES.error;
  const children = [
    h('div', { class: 'state-icon', 'aria-hidden': 'true' }),
    h('h1', { id: 'state-title' }, state.title),
  ];
  if (documentName) children.push(h('p', { class: 'state-doc' }, h('strong', {}, documentName)));
  children.push(h('p', {}, text ?? state.text));
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
  announce(state.title);
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
    return { state: 'closed', text: err.message };
  }
  return { state: 'error' };
}
