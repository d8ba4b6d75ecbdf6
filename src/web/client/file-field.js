// A `file` field: a button that opens the file picker, uploads the chosen file at once (PDF, PNG,
// JPEG or WebP, at most 10 MB) and then shows its name and size; choosing again replaces it.

import { h } from './dom.js';
import { t } from './i18n.js';

export const FILE_ACCEPT =
  'application/pdf,image/png,image/jpeg,image/webp,.pdf,.png,.jpg,.jpeg,.webp';
const MAX_BYTES = 10 * 1024 * 1024;

export function formatSize(bytes) {
  if (bytes < 1024) return t('file.sizeB', { size: bytes });
  if (bytes < 1024 * 1024) return t('file.sizeKb', { size: bytes / 1024 });
  return t('file.sizeMb', { size: bytes / (1024 * 1024) });
}

/**
 * `ctx.upload(field, file)` sends the bytes and resolves to the attachment id; a page without it
 * (the campaign page, before a document exists) shows the field as unavailable.
 */
export function fileControl(field, element, common, ctx) {
  const input = h('input', {
    type: 'file',
    accept: FILE_ACCEPT,
    class: 'visually-hidden',
    tabindex: '-1',
    'aria-hidden': 'true',
  });
  const label = h('span', { class: 'file-label' }, t('field.file'));
  const button = h('button', { ...common, type: 'button', class: 'field-box field-file' }, label);
  element.append(button, input);
  let attachmentId = null;
  let problem = null;
  const listeners = [];
  const changed = () => {
    for (const fn of listeners) fn();
  };

  if (!ctx.upload) {
    button.disabled = true;
    label.textContent = t('file.unavailable');
  }
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    if (file.size > MAX_BYTES) {
      problem = t('file.tooLarge', { maxMb: MAX_BYTES / (1024 * 1024) });
      changed();
      return;
    }
    label.textContent = t('file.uploading', { fileName: file.name });
    button.setAttribute('aria-busy', 'true');
    try {
      attachmentId = await ctx.upload(field, file);
      problem = null;
      label.replaceChildren(
        h('span', { class: 'file-name' }, file.name),
        h('span', { class: 'file-size' }, ` ${t('file.replace', { size: formatSize(file.size) })}`),
      );
      button.setAttribute(
        'aria-label',
        t('file.attached', {
          name: common['aria-label'],
          fileName: file.name,
          size: formatSize(file.size),
        }),
      );
    } catch (err) {
      problem = err?.message || t('file.failed');
      if (!attachmentId) label.textContent = t('field.file');
    } finally {
      button.removeAttribute('aria-busy');
      changed();
    }
  });
  return {
    focusTarget: button,
    value: () => attachmentId,
    filled: () => attachmentId !== null,
    listen: (fn) => listeners.push(fn),
    check: () => problem,
  };
}
