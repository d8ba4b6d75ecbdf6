// The document view: pages rendered by pdf.js with this signer's fields over them, a progress bar,
// guided navigation to the next field, and the Finish (with the emailed code when required) and
// Decline actions.

import { finishedSigning } from './frame.js';
import { collectValues, markOf } from './field-types.js';
import { ApiError } from './api.js';
import { announce, applyBrand, h, showLogo, showMain } from './dom.js';
import { openDeclineDialog, openOtpDialog } from './dialogs.js';
import { openHandOverDialog } from './handover.js';
import { createFieldControl, sortFields } from './fields.js';
import { openPdf, renderPages } from './pdf-view.js';
import { openSignaturePad } from './signature-pad.js';
import { showState } from './states.js';
import { formatDate, t, tNodes } from './i18n.js';

/**
 * The document with this signer's fields, the signature pad, and the Finish / Decline actions.
 * `refreshState()` re-reads the session after a refusal and shows a full-page state if there is one.
 */
export async function signingView(session, { api, pdfjsBase, limits: LIMITS, refreshState }) {
  const { document: doc, signer } = session;
  const fields = sortFields(session.fields);
  applyBrand(doc.brandColor);
  showLogo(doc.logoUrl, doc.senderName);
  const required = fields.filter((f) => f.required && !f.readOnly);

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
  const pagesEl = h(
    'div',
    { class: 'pages', 'aria-label': t('signing.documentLabel') },
    h(
      'div',
      { class: 'loading' },
      h('div', { class: 'spinner', 'aria-hidden': 'true' }),
      h('p', {}, t('signing.loadingDocument')),
    ),
  );

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

  const adopted = { signature: null, initials: null };
  const controls = [];
  const ctx = {
    signer,
    limits: LIMITS,
    onChange: () => updateProgress(),
    onSign: (field) => sign(field),
    upload: (field, file) => api.fieldFile(field.id, file),
  };
  for (const field of fields) {
    const page = pages[field.page - 1];
    if (!page) continue;
    const control = createFieldControl(field, ctx);
    page.layer.append(control.element);
    controls.push(control);
  }
  const byId = new Map(controls.map((c) => [c.field.id, c]));

  function updateProgress() {
    const done = required.filter((f) => byId.get(f.id)?.filled()).length;
    const pct = required.length ? Math.round((done / required.length) * 100) : 100;
    progressBar.style.width = `${pct}%`;
    progressBar.parentElement.setAttribute('aria-valuenow', String(done));
    progressText.textContent = required.length
      ? t('signing.requiredDone', { done, total: required.length })
      : t('signing.nothingRequired');
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

  /** Signature and initials fields: one adopted mark per kind, applied to every field of that kind. */
  async function sign(field) {
    const kind = markOf(field);
    const control = byId.get(field.id);
    if (adopted[kind] && !control.filled()) {
      control.setMark(adopted[kind]);
    } else {
      const mark = await openSignaturePad({
        mode: kind,
        name: signer.name,
        maxChars: LIMITS.typedSignatureMaxChars,
      });
      if (!mark) return;
      adopted[kind] = mark;
      // One signature per signer: changing it changes it everywhere it was already placed.
      for (const c of controls)
        if (c.field.type === field.type && (c === control || c.filled())) c.setMark(mark);
    }
    control.setError(null);
    updateProgress();
    announce(kind === 'initials' ? t('signing.initialsAdded') : t('signing.signatureAdded'));
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

  function showProblems(problems) {
    for (const c of controls) c.setError(problems.get(c) ?? null);
    const first = controls.find((c) => problems.has(c));
    const count = problems.size;
    status.classList.add('is-error');
    status.textContent = t('signing.fieldsNeedAttention', { count });
    announce(`${status.textContent} ${first ? `${first.name}: ${problems.get(first)}` : ''}`);
    if (first) goTo(first);
  }

  function body() {
    const values = collectValues(controls);
    const payload = { values };
    if (adopted.signature) payload.signature = adopted.signature;
    return payload;
  }

  /** Errors of the API about particular values (`details[].path` = `body.values.<fieldId>`) go next to their field. */
  function fieldProblemsOf(err) {
    const problems = new Map();
    const sentence = (d) =>
      d.message ? `${d.message[0].toUpperCase()}${d.message.slice(1)}.` : t('error.valueInvalid');
    for (const d of err.details ?? []) {
      const path = d?.path ?? '';
      const m = /values\.([^.]+)$/.exec(path);
      if (m && byId.has(m[1])) problems.set(byId.get(m[1]), sentence(d));
      // A missing or refused signature belongs to every signature field.
      else if (/^body\.signature/.test(path))
        for (const c of controls) if (c.field.type === 'signature') problems.set(c, sentence(d));
    }
    return problems;
  }

  async function handleCompleteError(err) {
    const problems = fieldProblemsOf(err);
    if (problems.size) return showProblems(problems);
    if (err.status === 409 && (await refreshState())) return;
    status.classList.add('is-error');
    status.textContent = err.message;
    announce(err.message);
  }

  const finished = (result) => {
    showState(result.allSigned ? 'done_all' : 'done', { documentName: doc.name });
    finishedSigning('completed', result);
  };

  finishButton.addEventListener('click', async () => {
    status.classList.remove('is-error');
    const problems = new Map();
    for (const c of controls) {
      const problem = c.validate();
      if (problem) problems.set(c, problem);
    }
    if (problems.size) return showProblems(problems);
    for (const c of controls) c.setError(null);

    // A signer without any field still signs the document as a whole.
    if (controls.length === 0 && !adopted.signature) {
      const mark = await openSignaturePad({
        mode: 'signature',
        name: signer.name,
        maxChars: LIMITS.typedSignatureMaxChars,
      });
      if (!mark) return;
      adopted.signature = mark;
    }

    if (session.otpRequired) {
      const result = await openOtpDialog({
        email: signer.email,
        phone: session.otpPhone,
        digits: LIMITS.otpDigits,
        requestOtp: () => api.requestOtp(),
        confirm: async (otp) => {
          try {
            return await api.complete({ ...body(), otp });
          } catch (err) {
            // Field problems are shown on the page; the dialog only keeps code errors.
            if (fieldProblemsOf(err).size) {
              queueMicrotask(() => handleCompleteError(err));
              return { fieldError: true };
            }
            throw err;
          }
        },
      });
      if (result && !result.fieldError) finished(result);
      return;
    }

    finishButton.disabled = true;
    finishButton.textContent = t('signing.signing');
    try {
      finished(await api.complete(body()));
    } catch (err) {
      finishButton.disabled = false;
      finishButton.textContent = t('signing.finish');
      await handleCompleteError(err);
    }
  });

  updateProgress();
  document.body.dataset.view = 'document';
}
