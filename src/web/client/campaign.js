// The public page of a campaign (`/c/{slug}`): anyone with the link fills in their details and the
// form's fields, signs, and is sent on to the campaign's redirect URL. Built from the signing page's
// pieces (PDF view, field controls, signature pad, code dialog, full-page states); every rule is the
// public API's (`/api/v1/public/campaigns/{slug}`, campaign-api.js), which answers the same errors
// as the signing API. The details form is campaign-details.js, the submission campaign-submit.js.

import { postError, postOnce } from './frame.js';
import { ApiError } from './api.js';
import { campaignApi } from './campaign-api.js';
import { visitorDetails } from './campaign-details.js';
import { campaignSubmission } from './campaign-submit.js';
import { applyBrand, h, showLogo, showMain } from './dom.js';
import { placeFields, sortFields } from './fields.js';
import { adoptedMarks } from './marks.js';
import { openPdf, pagesLoading, renderPages } from './pdf-view.js';
import { showFormUnavailable, showState } from './states.js';
import { t, tNodes } from './i18n.js';

/** Mirrors SIGNING_LIMITS of the API (src/modules/signing/signing.schemas.ts). */
const LIMITS = { valueMaxChars: 10000, typedSignatureMaxChars: 200, otpDigits: 6 };

const slug = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
const pdfjsBase = document.body.dataset.pdfjs;
const api = campaignApi(slug);

async function start() {
  let campaign;
  try {
    campaign = await api.get();
  } catch (err) {
    postError(err);
    return showFormUnavailable(err);
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
  const details = visitorDetails(campaign);

  const kyc = campaign.requireKyc;
  const pagesEl = pagesLoading();
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
  showMain(intro, details.section, pagesEl);
  document.body.append(actionbar);

  let pages;
  try {
    const pdf = await openPdf(await api.file(), pdfjsBase);
    pagesEl.replaceChildren();
    pages = await renderPages(pdf, pagesEl);
  } catch (err) {
    console.error(err);
    return err instanceof ApiError && err.status
      ? showFormUnavailable(err)
      : showState('error', { text: t('error.displayFailedForm') });
  }

  // With identity verification the visitor signs later, on their own signing page: no fields here.
  const signer = { name: '', email: '' };
  const { controls, byId } = placeFields(kyc ? [] : sortFields(campaign.fields), pages, {
    signer,
    limits: LIMITS,
    onChange: () => clearStatus(),
    onSign: (field) => marks.sign(field),
    upload: (field, file) => api.fieldFile(field.id, file),
  });
  const marks = adoptedMarks({
    controls,
    byId,
    name: () => details.name.value(),
    maxChars: LIMITS.typedSignatureMaxChars,
    onAdopted: () => clearStatus(),
  });
  // The template's name and email fields take what the visitor types under "Your details".
  for (const [detail, type] of [
    [details.name, 'name'],
    [details.email, 'email'],
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

  const form = { details, controls, byId, marks, signer, status, submitButton };
  campaignSubmission(campaign, { api, limits: LIMITS }, form);

  document.body.dataset.view = 'campaign';
  postOnce('viewed');
}

start().catch((err) => {
  console.error(err);
  postError(err);
  showState('error');
});
