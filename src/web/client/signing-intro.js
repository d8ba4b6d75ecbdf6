// The top of the signing page: the document's name, who sent it, who signs and by when, the
// sender's message, the hand-over button when the document allows it, and the progress bar of the
// required fields.

import { h } from './dom.js';
import { openHandOverDialog } from './handover.js';
import { showState } from './states.js';
import { formatDate, t, tNodes } from './i18n.js';

/** Returns the section and `progress(done)`, which shows `done` of the `required` fields filled. */
export function signingIntro(session, { api, limits: LIMITS, required }) {
  const { document: doc, signer } = session;
  // Hand-over, when the document allows it and it is this signer's turn (README "Reassign").
  const handOverButton = session.canReassign
    ? h('button', { type: 'button', class: 'btn btn-secondary' }, t('signing.handOver'))
    : null;
  handOverButton?.addEventListener('click', async () => {
    const result = await openHandOverDialog({
      maxChars: LIMITS.declineReasonMaxChars,
      ownEmail: signer.email,
      reassign: (body) => api.reassign(body),
    });
    if (result)
      showState('handed_over', {
        documentName: doc.name,
        text: t('state.handedOverText', { name: result.name }),
      });
  });

  const progressBar = h('div', { class: 'progress-bar' });
  const progressText = h('span', {});
  const intro = h(
    'section',
    { class: 'intro', 'aria-labelledby': 'doc-title' },
    h('h1', { id: 'doc-title' }, doc.name),
    h(
      'p',
      { class: 'intro-meta' },
      doc.senderName
        ? [...tNodes('signing.from', { senderName: h('bdi', {}, doc.senderName) }), ' · ']
        : '',
      ...tNodes('signing.signingAs', { name: h('strong', {}, h('bdi', {}, signer.name)) }),
      ' (',
      h('bdi', { dir: 'ltr' }, signer.email),
      ')',
      doc.expiresAt ? ` · ${t('signing.signBy', { date: formatDate(doc.expiresAt) })}` : '',
    ),
    doc.message ? h('p', { class: 'intro-message' }, doc.message) : null,
    handOverButton ? h('p', { class: 'intro-actions' }, handOverButton) : null,
    h(
      'div',
      { class: 'progress' },
      h(
        'div',
        {
          class: 'progress-track',
          role: 'progressbar',
          'aria-label': t('signing.progressLabel'),
          'aria-valuemin': '0',
          'aria-valuemax': String(required.length),
          'aria-valuenow': '0',
        },
        progressBar,
      ),
      progressText,
    ),
  );

  function progress(done) {
    const pct = required.length ? Math.round((done / required.length) * 100) : 100;
    progressBar.style.width = `${pct}%`;
    progressBar.parentElement.setAttribute('aria-valuenow', String(done));
    progressText.textContent = required.length
      ? t('signing.requiredDone', { done, total: required.length })
      : t('signing.nothingRequired');
  }
  return { intro, progress };
}
