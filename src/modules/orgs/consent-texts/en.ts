/** The default consent disclosure in English, the reference, one entry per paragraph (see ../consent-text.ts). */
export const en: readonly string[] = [
  'Consent to use electronic records and signatures',
  'The sender of this document asks to provide it to you and to obtain your signature electronically. Before you continue, please read the following.',
  'Paper copies. You have the right to receive this document on paper instead. To ask for a paper copy, contact the sender using the contact details you already have for them; they may charge a reasonable fee if they say so. After signing, you will receive the completed document by email and can print it.',
  'Withdrawing your consent. You may withdraw your consent to do business electronically at any time before you sign, by choosing "I do not agree" on this page or by telling the sender. Withdrawing ends this electronic signing request: the document is declined, and the sender must provide it to you on paper or by other means. Withdrawing does not affect the legal effect of anything you signed electronically before.',
  'Scope. Your consent applies to this document and to the notices about it that we send you by email.',
  'Hardware and software. You need a device with internet access, a current web browser (such as a recent version of Chrome, Edge, Firefox or Safari) with JavaScript enabled, an email account, and the ability to view and save or print PDF files.',
  'Keeping your contact details current. If your email address or other contact details change, tell the sender so that they can reach you about this document.',
  'By choosing "I agree", you confirm that you can access and read this disclosure and documents in PDF, and that you consent to use electronic records and signatures for this document.',
];
