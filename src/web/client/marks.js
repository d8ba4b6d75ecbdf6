// The marks a signer adopts on the signing and campaign pages: one signature and one initials.
// The pad opens for the first field of a kind; every other field of that kind then takes the same
// mark, and adopting another one changes it wherever it was already placed.

import { announce } from './dom.js';
import { markOf } from './field-types.js';
import { t } from './i18n.js';
import { openSignaturePad } from './signature-pad.js';

/**
 * `controls` and `byId`: the page's field controls (fields.js placeFields); `name()`: what the
 * pad's typed tab starts with; `maxChars`: the API's limit of a typed mark (the pad's input holds
 * no more); `onAdopted()`: runs after a field got its mark. `adopted.signature` is what the
 * submitted body carries.
 */
export function adoptedMarks({ controls, byId, name, maxChars, onAdopted }) {
  const adopted = { signature: null, initials: null };
  const pad = (mode) => openSignaturePad({ mode, name: name(), maxChars });
  return {
    adopted,
    /** A signature or initials field was pressed: its kind's mark, the pad first if it has none. */
    async sign(field) {
      const kind = markOf(field);
      const control = byId.get(field.id);
      if (adopted[kind] && !control.filled()) control.setMark(adopted[kind]);
      else {
        const mark = await pad(kind);
        if (!mark) return;
        adopted[kind] = mark;
        // One signature per signer: changing it changes it everywhere it was already placed.
        for (const c of controls)
          if (c.field.type === field.type && (c === control || c.filled())) c.setMark(mark);
      }
      control.setError(null);
      onAdopted();
      announce(kind === 'initials' ? t('signing.initialsAdded') : t('signing.signatureAdded'));
    },
    /**
     * A signer without any field still signs the document as a whole: the pad, unless a signature
     * is already adopted. False when the signer cancels it.
     */
    async signDocument() {
      if (controls.length > 0 || adopted.signature) return true;
      const mark = await pad('signature');
      if (!mark) return false;
      adopted.signature = mark;
      return true;
    },
  };
}
