// The document view: pages rendered by pdf.js with this signer's fields over them, a progress bar,
// guided navigation to the next field, and the Finish (signing-finish.js) and Decline actions.

import { finishedSigning } from './frame.js';
import { ApiError } from './api.js';
import { applyBrand, h, showLogo, showMain } from './dom.js';
import { openDeclineDialog } from './dialogs.js';
import { placeFields, sortFields } from './fields.js';
import { adoptedMarks } from './marks.js';
import { openPdf, pagesLoading, renderPages } from './pdf-view.js';
import { finishAction } from './signing-finish.js';
import { signingIntro } from './signing-intro.js';
import { showState } from './states.js';
import { t } from './i18n.js';

/**
 * The document with this signer's fields, the signature pad, and the Finish / Decline actions.
 * `refreshState()` re-reads the session after a refusal and shows a full-page state if there is one.
 */
export async function signingView(session, options) {
  const { api, pdfjsBase, limits: LIMITS, refreshState } = options;
  const { document: doc, signer } = session;
  const fields = sortFields(session.fields);
  applyBrand(doc.brandColor);
  showLogo(doc.logoUrl, doc.senderName);
  const required = fields.filter((f) => f.required && !f.readOnly);
  const { intro, progress } = signingIntro(session, { api, limits: LIMITS, required });
  const pagesEl = pagesLoading();

  const status = h('p', { class: 'actionbar-status', id: 'action-status' });
  const declineButton = h(
    'button',
    { type: 'button', class: 'btn btn-ghost' },
    t('signing.decline'),
  );
  const nextButton = h(
    'button',
    { type: 'button', class: 'btn btn-secondary' },
    t('signing.start'),
  );
  const finishButton = h(
    'button',
    { type: 'button', class: 'btn btn-primary', 'aria-describedby': 'action-status' },
    t('signing.finish'),
  );
  const actionbar = h(
    'div',
    { class: 'actionbar', role: 'region', 'aria-label': t('signing.actionsLabel') },
    h('div', { class: 'actionbar-inner' }, status, declineButton, nextButton, finishButton),
  );

  showMain(intro, pagesEl);
  document.body.append(actionbar);

  // Load and lay out the document.
  let pages;
  try {
    const bytes = await api.file();
    const pdf = await openPdf(bytes, pdfjsBase);
    pagesEl.replaceChildren();
    pages = await renderPages(pdf, pagesEl);
  } catch (err) {
    console.error(err);
    if (err instanceof ApiError && (await refreshState())) return;
    showState('error', {
      text: t('error.displayFailed'),
    });
    return;
  }

  const { controls, byId } = placeFields(fields, pages, {
    signer,
    limits: LIMITS,
    onChange: () => updateProgress(),
    onSign: (field) => marks.sign(field),
    upload: (field, file) => api.fieldFile(field.id, file),
  });
  const marks = adoptedMarks({
    controls,
    byId,
    name: () => signer.name,
    maxChars: LIMITS.typedSignatureMaxChars,
    onAdopted: () => updateProgress(),
  });

  function updateProgress() {
    const done = required.filter((f) => byId.get(f.id)?.filled()).length;
    progress(done);
    if (
      status.classList.contains('is-error') &&
      !controls.some((c) => c.element.classList.contains('is-invalid'))
    )
      status.classList.remove('is-error');
    if (!status.classList.contains('is-error')) {
      status.textContent =
        done === required.length
          ? t('signing.allSet')
          : t('signing.requiredLeft', { count: required.length - done });
    }
    // Guidance ends when nothing required is left; Finish is then the only next step.
    nextButton.hidden = done === required.length;
  }

  function goTo(control) {
    for (const c of controls) c.element.classList.toggle('is-current', c === control);
    control.element.scrollIntoView({
      behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth',
      block: 'center',
    });
    control.focusTarget?.focus({ preventScroll: true });
  }

  nextButton.addEventListener('click', () => {
    nextButton.textContent = t('signing.nextField');
    const active = controls.findIndex(
      (c) =>
        c.element.contains(document.activeElement) || c.element.classList.contains('is-current'),
    );
    const order = [...controls.slice(active + 1), ...controls.slice(0, active + 1)];
    const target =
      order.find((c) => !c.field.readOnly && c.field.required && !c.filled()) ??
      order.find((c) => !c.field.readOnly && !c.filled());
    if (target) goTo(target);
    updateProgress();
  });

  declineButton.addEventListener('click', async () => {
    const result = await openDeclineDialog({
      maxChars: LIMITS.declineReasonMaxChars,
      decline: (reason) => api.decline(reason),
    });
    if (result) {
      showState('you_declined', { documentName: doc.name });
      finishedSigning('declined', result);
    }
  });

  finishAction(session, options, { controls, byId, marks, status, finishButton, goTo });

  updateProgress();
  document.body.dataset.view = 'document';
}
