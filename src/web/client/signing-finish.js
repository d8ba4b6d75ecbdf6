// The Finish button of the signing page: every field checked first, the problems shown next to
// their fields, the emailed (or texted) code asked when the document requires one, then the
// signature sent; the API's refusals of particular values go next to their fields too.

import { finishedSigning } from './frame.js';
import { collectValues } from './field-types.js';
import { announce } from './dom.js';
import { openOtpDialog } from './dialogs.js';
import { showState } from './states.js';
import { t } from './i18n.js';

/**
 * `options`: the signing view's (`api`, `limits`, and `refreshState()`, which re-reads the session
 * after a refusal and shows its full-page state if any). `form`: the signer's field `controls` and
 * `byId`, their adopted `marks` (marks.js), the action bar's `status` line and `finishButton`, and
 * `goTo(control)`, which scrolls to a field and focuses it.
 */
export function finishAction(session, { api, limits: LIMITS, refreshState }, form) {
  const { controls, byId, marks, status, finishButton, goTo } = form;
  const doc = session.document;

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
    if (marks.adopted.signature) payload.signature = marks.adopted.signature;
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

    if (!(await marks.signDocument())) return;

    if (session.otpRequired) {
      const result = await openOtpDialog({
        email: session.signer.email,
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
}
