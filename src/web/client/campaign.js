// The public page of a campaign (`/c/{slug}`): anyone with the link fills in their details and the
// form's fields, signs, and is sent on to the campaign's redirect URL. Built from the signing page's
// pieces (PDF view, field controls, signature pad, code dialog, full-page states); every rule is the
// public API's (`/api/v1/public/campaigns/{slug}`), which answers the same errors as the signing API.

import { embedded, frameIds, postError, postOnce, postToHost } from './frame.js';
import { collectValues, markOf } from './field-types.js';
import { ApiError } from './api.js';
import { announce, applyBrand, h, nextId, showLogo, showMain } from './dom.js';
import { openOtpDialog } from './dialogs.js';
import { createFieldControl, sortFields } from './fields.js';
import { openPdf, renderPages } from './pdf-view.js';
import { openSignaturePad } from './signature-pad.js';
import { showState } from './states.js';
import { locale, t, tNodes } from './i18n.js';

/** Mirrors SIGNING_LIMITS of the API (src/modules/signing/signing.schemas.ts). */
const LIMITS = { valueMaxChars: 10000, typedSignatureMaxChars: 200, otpDigits: 6 };

const slug = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
const pdfjsBase = document.body.dataset.pdfjs;

function campaignApi() {
  const base = `/api/v1/public/campaigns/${encodeURIComponent(slug)}`;
  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(base + path, {
        method,
        // The page's language first: the visitor's code mail and signed copy speak it.
        headers:
          body === undefined
            ? { accept: 'application/json', 'accept-language': locale }
            : {
                accept: 'application/json',
                'accept-language': locale,
                'content-type': 'application/json',
              },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network_error', t('error.network'));
    }
    const json = await res.json().catch(() => null);
    if (!res.ok) {
      const err = json?.error;
      throw new ApiError(
        res.status,
        err?.code ?? 'http_error',
        err?.message ?? t('error.serverAnswered', { status: res.status }),
        err?.details,
      );
    }
    return json?.data ?? json;
  }
  return {
    get: () => call('GET', ''),
    async file() {
      const res = await fetch(`${base}/file`, { credentials: 'omit', cache: 'no-store' }).catch(
        () => null,
      );
      if (!res?.ok)
        throw new ApiError(res?.status ?? 0, 'file_error', t('error.documentNotLoaded'));
      return new Uint8Array(await res.arrayBuffer());
    },
    requestOtp: (email) => call('POST', '/otp', { email }),
    submit: (body) => call('POST', '/submissions', body),
    /** A `file` field's file before submitting: the bytes as they are, typed by their own Content-Type; resolves to the attachment id. */
    async fieldFile(fieldId, file) {
      let res;
      const url = `${base}/fields/${encodeURIComponent(fieldId)}/file?filename=${encodeURIComponent(file.name.slice(0, 200))}`;
      try {
        res = await fetch(url, {
          method: 'PUT',
          headers: {
            'content-type': file.type || 'application/octet-stream',
            accept: 'application/json',
          },
          body: file,
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch {
        throw new ApiError(0, 'network_error', t('error.uploadNetwork'));
      }
      const json = await res.json().catch(() => null);
      if (!res.ok)
        throw new ApiError(
          res.status,
          json?.error?.code ?? 'http_error',
          json?.error?.message ?? t('error.serverAnswered', { status: res.status }),
          json?.error?.details,
        );
      return json.data.attachmentId;
    },
  };
}
const api = campaignApi();

/** Shows why the form takes nothing (paused, closed, expired, full, unknown link) as a full page. */
function showUnavailable(err) {
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

/** A labelled input of the details form. */
function detailInput({
  label,
  type,
  autocomplete,
  required,
  maxlength,
  format,
  hint,
  missing,
  invalid,
}) {
  const id = nextId('detail');
  const errorId = nextId('detail-err');
  const input = h('input', {
    class: 'input',
    id,
    dir: 'auto',
    type,
    autocomplete,
    maxlength,
    required,
    'aria-describedby': errorId,
    'aria-required': required ? 'true' : undefined,
  });
  const error = h('p', { class: 'form-error', id: errorId });
  const row = h(
    'div',
    { class: 'form-row' },
    h('label', { for: id }, required ? label : t('form.optional', { label })),
    input,
    hint ? h('span', { class: 'form-hint' }, hint) : null,
    error,
  );
  const setError = (message) => {
    error.textContent = message ?? '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  input.addEventListener('input', () => setError(null));
  const validate = () => {
    const value = input.value.trim();
    if (required && !value) return missing;
    if (value && (!input.checkValidity() || (format && !format.test(value)))) return invalid;
    return null;
  };
  return { row, input, setError, validate, value: () => input.value.trim() };
}

async function start() {
  let campaign;
  try {
    campaign = await api.get();
  } catch (err) {
    postError(err);
    return showUnavailable(err);
  }
  postOnce('ready');
  applyBrand(campaign.brandColor);
  showLogo(campaign.logoUrl, campaign.senderName);
  const title = campaign.welcomeTitle || campaign.name;
  document.title = t('page.titleDocument', { documentName: title });
  // No top bar when framed (`?embed=1`).
  const topbarDoc = document.getElementById('topbar-doc');
  if (topbarDoc) topbarDoc.textContent = campaign.senderName;

  const intro = h(
    'section',
    { class: 'intro', 'aria-labelledby': 'campaign-title' },
    h('h1', { id: 'campaign-title' }, title),
    h(
      'p',
      { class: 'intro-meta' },
      ...tNodes('form.intro', {
        senderName: h('bdi', {}, campaign.senderName),
        documentName: h('bdi', {}, campaign.document.name),
      }),
    ),
    campaign.welcomeMessage ? h('p', { class: 'intro-message' }, campaign.welcomeMessage) : null,
  );

  const name = detailInput({
    label: t('form.fullName'),
    missing: t('form.enterName'),
    invalid: t('form.enterValidName'),
    type: 'text',
    autocomplete: 'name',
    required: true,
    maxlength: '200',
  });
  const email = detailInput({
    label: t('form.email'),
    missing: t('form.enterEmail'),
    invalid: t('form.enterValidEmail'),
    type: 'email',
    autocomplete: 'email',
    required: true,
    maxlength: '254',
    hint: t('form.emailHint'),
  });
  const phone = campaign.collectPhone
    ? detailInput({
        label: t('form.phone'),
        missing: t('form.enterPhone'),
        invalid: t('form.enterValidPhone'),
        type: 'tel',
        autocomplete: 'tel',
        required: true,
        maxlength: '32',
        format: /^\+?[0-9 ().-]{3,32}$/,
      })
    : null;
  const details = [name, email, phone].filter(Boolean);
  const detailsSection = h(
    'section',
    { class: 'intro', 'aria-labelledby': 'details-title' },
    h('h2', { id: 'details-title' }, t('form.yourDetails')),
    details.map((d) => d.row),
  );

  const kyc = campaign.requireKyc;
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
  const status = h('p', { class: 'actionbar-status', id: 'action-status', role: 'status' });
  const submitButton = h(
    'button',
    { type: 'button', class: 'btn btn-primary', 'aria-describedby': 'action-status' },
    kyc ? t('form.continue') : t('form.signAndSubmit'),
  );
  const actionbar = h(
    'div',
    { class: 'actionbar', role: 'region', 'aria-label': t('form.actionsLabel') },
    h('div', { class: 'actionbar-inner' }, status, submitButton),
  );
  showMain(intro, detailsSection, pagesEl);
  document.body.append(actionbar);

  let pages;
  try {
    const pdf = await openPdf(await api.file(), pdfjsBase);
    pagesEl.replaceChildren();
    pages = await renderPages(pdf, pagesEl);
  } catch (err) {
    console.error(err);
    return err instanceof ApiError && err.status
      ? showUnavailable(err)
      : showState('error', { text: t('error.displayFailedForm') });
  }

  // With identity verification the visitor signs later, on their own signing page: no fields here.
  const fields = kyc ? [] : sortFields(campaign.fields);
  const adopted = { signature: null, initials: null };
  const controls = [];
  const signer = { name: '', email: '' };
  const ctx = {
    signer,
    limits: LIMITS,
    onChange: () => clearStatus(),
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
  // The template's name and email fields take what the visitor types under "Your details".
  for (const [detail, type] of [
    [name, 'name'],
    [email, 'email'],
  ]) {
    detail.input.addEventListener('input', () => {
      for (const c of controls) if (c.field.type === type) c.prefill?.(detail.value());
      clearStatus();
    });
  }

  function clearStatus() {
    if (!controls.some((c) => c.element.classList.contains('is-invalid'))) {
      status.classList.remove('is-error');
      status.textContent = '';
    }
  }

  async function sign(field) {
    const kind = markOf(field);
    const control = byId.get(field.id);
    if (adopted[kind] && !control.filled()) control.setMark(adopted[kind]);
    else {
      const mark = await openSignaturePad({ mode: kind, name: name.value() });
      if (!mark) return;
      if (mark.kind === 'typed') mark.value = mark.value.slice(0, LIMITS.typedSignatureMaxChars);
      adopted[kind] = mark;
      for (const c of controls)
        if (c.field.type === field.type && (c === control || c.filled())) c.setMark(mark);
    }
    control.setError(null);
    clearStatus();
    announce(kind === 'initials' ? t('signing.initialsAdded') : t('signing.signatureAdded'));
  }

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
      if (adopted.signature) payload.signature = adopted.signature;
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
    for (const d of details) {
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

    if (!kyc && controls.length === 0 && !adopted.signature) {
      const mark = await openSignaturePad({ mode: 'signature', name: name.value() });
      if (!mark) return;
      adopted.signature = mark;
    }

    const onError = (err) => {
      if (placeProblems(err)) return;
      if (err.status === 409 || err.status === 404) return showUnavailable(err);
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

  document.body.dataset.view = 'campaign';
  postOnce('viewed');
}

start().catch((err) => {
  console.error(err);
  postError(err);
  showState('error');
});
