// The builder page (`/build/{token}`): the document's or template's pages, a palette of every
// field type, the signers or roles, and the fields placed so far. Saving sends every field to the
// builder API under the link's token, which checks them by the rules of the fields API; framed by
// an allowed site, the page then posts `saved` to it.

import { ApiError, refusal } from './api.js';
import { announce, h, showMain } from './dom.js';
import { t, tNodes } from './i18n.js';
import { openPdf, renderPages } from './pdf-view.js';
import { builderCanvas, typeName } from './builder-canvas.js';
import { propertiesPanel } from './builder-panel.js';
import { frameIds, postError, postOnce, postToHost } from './frame.js';

const token = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
const base = `/api/v1/build/${encodeURIComponent(token)}`;
const pdfjsBase = document.body.dataset.pdfjs;
/** The registry's entries ({type, options, defaultSize, minSize}) by type, in palette order. */
const types = Object.fromEntries(
  JSON.parse(document.body.dataset.fieldTypes ?? '[]').map((entry) => [entry.type, entry]),
);

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(base + path, {
      method,
      headers: body
        ? { accept: 'application/json', 'content-type': 'application/json' }
        : { accept: 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network_error', t('error.network'));
  }
  if (path === '/file' && res.ok) return new Uint8Array(await res.arrayBuffer());
  const json = await res.json().catch(() => null);
  if (!res.ok) throw refusal(res, json);
  return json.data;
}

/** A full-page message in place of the builder. */
function fullPage(title, text) {
  showMain(
    h(
      'section',
      { class: 'state-card state-error' },
      h('div', { class: 'state-icon', 'aria-hidden': 'true' }),
      h('h1', {}, t(title)),
      h('p', {}, t(text)),
    ),
  );
}

function showError(err) {
  postError(err);
  if (err.code === 'invalid_state') return fullPage('builder.sentTitle', 'builder.sentText');
  if (err.status === 403 || err.status === 404)
    return fullPage('builder.invalidTitle', 'builder.invalidText');
  return fullPage('builder.loadFailedTitle', 'error.displayFailed');
}

/** A field as the page keeps it: the API's, with a key that new fields have too. */
const local = (f) => ({ ...f, key: f.id });

/** The body of a save: positions rounded to hundredths, never past the page's edge. */
function toBody(fields) {
  const r = (v) => Math.round(v * 100) / 100;
  return fields.map((f) => {
    const x = Math.min(r(f.x), 99.99);
    const y = Math.min(r(f.y), 99.99);
    const body = {
      type: f.type,
      page: f.page,
      x,
      y,
      width: Math.max(0.01, Math.min(r(f.width), Math.floor((100 - x) * 100) / 100)),
      height: Math.max(0.01, Math.min(r(f.height), Math.floor((100 - y) * 100) / 100)),
      label: f.label,
      required: f.required,
      readOnly: f.readOnly,
      assignedTo: f.assignedTo,
      placeholder: f.placeholder,
      defaultValue: f.defaultValue,
      options: f.options,
    };
    return f.id ? { id: f.id, ...body } : body;
  });
}

async function start() {
  let view;
  let bytes;
  try {
    view = await call('GET', '');
    frameIds(view.kind === 'document' ? view.id : null);
    postOnce('ready');
    if (view.pageCount === null) return fullPage('builder.noFileTitle', 'builder.noFileText');
    bytes = await call('GET', '/file');
  } catch (err) {
    return showError(err);
  }
  document.title = t('builder.titleOf', { name: view.name });
  const topbarDoc = document.getElementById('topbar-doc');
  if (topbarDoc) topbarDoc.textContent = view.name;

  const parties = () =>
    view.parties.length > 0 ? view.parties : [{ order: 0, name: t('builder.partyN', { n: 1 }) }];
  const partyName = (order) =>
    parties().find((p) => p.order === order)?.name ?? t('builder.partyN', { n: order + 1 });
  const state = { fields: view.fields.map(local), selected: null, assignee: parties()[0].order };

  const status = h('div', { class: 'actionbar-status', role: 'status' });
  const problems = h('div', { class: 'builder-problems', role: 'alert', tabindex: '-1' });
  const saveBtn = h('button', { type: 'button', class: 'btn btn-primary' }, t('builder.save'));
  const pagesEl = h('div', { class: 'pages' });
  const assignee = h(
    'select',
    { class: 'input', id: 'b-assignee' },
    parties().map((p) => h('option', { value: String(p.order) }, p.name)),
  );
  assignee.addEventListener('change', () => {
    state.assignee = Number(assignee.value);
  });
  const palette = h(
    'ul',
    { class: 'palette', role: 'list' },
    Object.keys(types).map((type) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'btn btn-secondary palette-item', dataset: { type } },
          typeName(type),
        ),
      ),
    ),
  );
  let canvas;
  const panel = propertiesPanel({
    types,
    partyOptions: parties,
    changed: () => {
      canvas.draw();
      dirty();
    },
    remove: (f) => canvas.remove(f.key),
  });
  const paletteCard = h(
    'section',
    { class: 'builder-card', 'aria-labelledby': 'b-palette' },
    h('h2', { id: 'b-palette' }, t('builder.palette')),
    h(
      'div',
      { class: 'form-row' },
      h('label', { for: 'b-assignee' }, t('builder.assigneeNew')),
      assignee,
    ),
    palette,
    h('p', { class: 'form-hint', id: 'b-hint' }, t('builder.paletteHint')),
  );
  showMain(
    h(
      'div',
      { class: 'builder' },
      h(
        'div',
        { class: 'intro' },
        h('h1', {}, tNodes('builder.heading', { name: h('bdi', {}, view.name) })),
      ),
      problems,
      h(
        'div',
        { class: 'builder-grid' },
        h('div', { class: 'builder-side' }, paletteCard, panel.element),
        h('div', { class: 'builder-doc' }, pagesEl),
      ),
    ),
  );
  document.body.append(
    h('div', { class: 'actionbar' }, h('div', { class: 'actionbar-inner' }, status, saveBtn)),
  );

  let pages;
  try {
    pages = await renderPages(await openPdf(bytes, pdfjsBase), pagesEl);
  } catch (err) {
    console.error(err);
    return fullPage('builder.loadFailedTitle', 'error.displayFailed');
  }
  postOnce('viewed');

  function dirty() {
    status.textContent = t('builder.unsaved');
    status.classList.remove('is-error');
  }
  canvas = builderCanvas({
    pages,
    state,
    types,
    partyName,
    changed: dirty,
    selected: () => panel.show(state.fields.find((f) => f.key === state.selected) ?? null),
  });
  canvas.draw();
  for (const button of palette.querySelectorAll('.palette-item')) {
    const type = button.dataset.type;
    button.addEventListener('pointerdown', (e) => canvas.pressPalette(e, type, button));
    button.addEventListener('click', () => {
      // A drag that ended on a page already placed the field; its click adds nothing more.
      if (button.dataset.dragged === 'true') delete button.dataset.dragged;
      else canvas.addInView(type);
    });
  }

  saveBtn.addEventListener('click', async () => {
    saveBtn.disabled = true;
    status.textContent = t('builder.saving');
    status.classList.remove('is-error');
    problems.replaceChildren();
    const sent = [...state.fields];
    for (const f of sent) f.invalid = false;
    try {
      const saved = await call('PUT', '/fields', { fields: toBody(sent) });
      const selectedId = sent.find((f) => f.key === state.selected)?.id;
      state.fields = saved.map(local);
      state.selected = selectedId ?? null;
      canvas.draw();
      panel.show(state.fields.find((f) => f.key === state.selected) ?? null);
      status.textContent = t('builder.saved');
      announce(t('builder.saved'));
      postToHost('saved', {
        ...(view.kind === 'template' ? { templateId: view.id } : {}),
        fieldCount: saved.length,
      });
    } catch (err) {
      showProblems(err, sent);
    } finally {
      saveBtn.disabled = false;
    }
  });

  /** The API's refusal, field by field where it names one, in the page's words around it. */
  function showProblems(err, sent) {
    postError(err);
    status.textContent = t('builder.saveFailed');
    status.classList.add('is-error');
    if (err.code === 'invalid_state') return fullPage('builder.sentTitle', 'builder.sentText');
    const items = (err.details?.length ? err.details : [{ message: err.message }]).map((d) => {
      const m = /^body\.fields\.(\d+)/.exec(d.path ?? '');
      const f = m ? sent[Number(m[1])] : undefined;
      if (!f) return h('li', {}, d.message);
      f.invalid = true;
      const which = t('builder.fieldProblem', {
        n: Number(m[1]) + 1,
        name: f.label || typeName(f.type),
        page: f.page,
      });
      return h('li', {}, `${which}: ${d.path.slice(m[0].length + 1) || ''} ${d.message}`.trim());
    });
    canvas.draw();
    problems.replaceChildren(h('p', {}, t('builder.saveFailed')), h('ul', {}, items));
    problems.focus();
  }
}

start();
