// A `file` field: a button that opens the file picker, uploads the chosen file at once (PDF, PNG,
// JPEG or WebP, at most 10 MB) and then shows its name and size; choosing again replaces it.

import { h } from './dom.js';

export const FILE_ACCEPT =
  'application/pdf,image/png,image/jpeg,image/webp,.pdf,.png,.jpg,.jpeg,.webp';
const MAX_BYTES = 10 * 1024 * 1024;

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
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
  const label = h('span', { class: 'file-label' }, 'Attach a file');
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
    label.textContent = 'Upload not available here';
  }
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    if (file.size > MAX_BYTES) {
      problem = 'Choose a file of at most 10 MB.';
      changed();
      return;
    }
    label.textContent = `Uploading ${file.name}…`;
    button.setAttribute('aria-busy', 'true');
    try {
      attachmentId = await ctx.upload(field, file);
      problem = null;
      label.replaceChildren(
        h('span', { class: 'file-name' }, file.name),
        h('span', { class: 'file-size' }, ` ${formatSize(file.size)} · Replace`),
      );
      button.setAttribute(
        'aria-label',
        `${common['aria-label']}: ${file.name}, ${formatSize(file.size)}. Activate to replace.`,
      );
    } catch (err) {
      problem = err?.message || 'The upload failed. Try again.';
      if (!attachmentId) label.textContent = 'Attach a file';
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
