// The campaign page's submit button: the visitor's details and the fields checked first, the pad
// when the form has no field to sign, the emailed code when the campaign requires one, then the
// submission; the API's refusals go next to their input or field, and the visitor moves on to
// their signing page (identity verification), the campaign's redirect URL or the page's last state.

import { embedded, frameIds, postToHost } from './frame.js';
import { collectValues } from './field-types.js';
import { announce } from './dom.js';
import { openOtpDialog } from './dialogs.js';
import { showFormUnavailable, showState } from './states.js';
import { t } from './i18n.js';

/**
 * `form`: the visitor's `details` (campaign-details.js); the field `controls`, `byId`, and their
 * adopted `marks` (marks.js); `signer`, what the fields know of the visitor (name and email), set
 * here once the details are valid; the action bar's `status` line and `submitButton`.
 */
export function campaignSubmission(campaign, { api, limits: LIMITS }, form) {
  const { details, controls, byId, marks, signer, status, submitButton } = form;
  const kyc = campaign.requireKyc;
  const { name, email, phone } = details;

  function fail(message, focus) {
    status.classList.add('is-error');
    status.textContent = message;
    announce(message);
    focus?.scrollIntoView({ block: 'center' });
    focus?.focus({ preventScroll: true });
  }

  /** Problems the API names by path go next to their input or field; returns how many it placed. */
  function placeProblems(err) {
    let placed = 0;
    let first = null;
    const sentence = (d) =>
      d.message ? `${d.message[0].toUpperCase()}${d.message.slice(1)}.` : t('error.valueInvalid');
    for (const d of err.details ?? []) {
      const path = d?.path ?? '';
      const detail = { 'body.name': name, 'body.email': email, 'body.phone': phone }[path];
      const field = /values\.([^.]+)$/.exec(path);
      if (detail) {
        detail.setError(sentence(d));
        first ??= detail.input;
      } else if (field && byId.has(field[1])) {
        byId.get(field[1]).setError(sentence(d));
        first ??= byId.get(field[1]).focusTarget;
      } else if (/^body\.signature/.test(path)) {
        for (const c of controls) if (c.field.type === 'signature') c.setError(sentence(d));
        first ??= controls.find((c) => c.field.type === 'signature')?.focusTarget ?? null;
      } else continue;
      placed++;
    }
    if (placed) fail(t('form.answersNeedAttention', { count: placed }), first);
    return placed;
  }

  function body() {
    const values = collectValues(controls);
    const payload = { name: name.value(), email: email.value() };
    if (phone) payload.phone = phone.value();
    if (!kyc) {
      payload.values = values;
      if (marks.adopted.signature) payload.signature = marks.adopted.signature;
    }
    return payload;
  }

  function finished(result) {
    frameIds(result.id);
    // With identity verification, the visitor continues on their own signing page (framed too).
    if (result.signingUrl && embedded) {
      const url = new URL(result.signingUrl);
      for (const [k, v] of new URLSearchParams(location.search))
        if (k === 'embed' || k === 'origin') url.searchParams.set(k, v);
      return location.assign(url.href);
    }
    postToHost('completed');
    // A framed form leaves what comes next to the page around it.
    const next = result.signingUrl || (embedded ? '' : result.redirectUrl);
    if (next) {
      status.classList.remove('is-error');
      status.textContent = t('state.redirecting');
      location.assign(next);
      return;
    }
    showState(result.allSigned || result.status === 'completed' ? 'done_all' : 'done', {
      documentName: campaign.document.name,
    });
  }

  submitButton.addEventListener('click', async () => {
    let firstProblem = null;
    for (const d of details.all) {
      const problem = d.validate();
      d.setError(problem);
      if (problem) firstProblem ??= d.input;
    }
    for (const c of controls) {
      const problem = c.validate();
      c.setError(problem);
      if (problem) firstProblem ??= c.focusTarget;
    }
    if (firstProblem) return fail(t('form.someAnswersNeedAttention'), firstProblem);
    signer.name = name.value();
    signer.email = email.value();

    if (!kyc && !(await marks.signDocument())) return;

    const onError = (err) => {
      if (placeProblems(err)) return;
      if (err.status === 409 || err.status === 404) return showFormUnavailable(err);
      fail(err.message);
    };

    if (campaign.requireOtp) {
      const result = await openOtpDialog({
        email: email.value(),
        digits: LIMITS.otpDigits,
        requestOtp: () => api.requestOtp(email.value()),
        confirm: async (otp) => {
          try {
            return await api.submit({ ...body(), otp });
          } catch (err) {
            // Code problems stay in the dialog; anything else closes it and shows on the page.
            if (['otp_required', 'invalid_otp', 'link_locked', 'rate_limited'].includes(err.code))
              throw err;
            queueMicrotask(() => onError(err));
            return { failed: true };
          }
        },
      });
      if (result && !result.failed) finished(result);
      return;
    }

    submitButton.disabled = true;
    submitButton.textContent = t('form.submitting');
    try {
      finished(await api.submit(body()));
    } catch (err) {
      submitButton.disabled = false;
      submitButton.textContent = kyc ? t('form.continue') : t('form.signAndSubmit');
      onError(err);
    }
  });
}
