/** What finalizePdf takes: the stamping and certificate-page code read these types too. */

/** A way a signer proved access: the link mailed to it, an access code, a one-time code by email or SMS. */
export type AuthenticationMethod = 'email_link' | 'access_code' | 'email_otp' | 'sms_otp';

export interface FinalizeSigner {
  name: string;
  email: string;
  role: string;
  signedAt: string | null;
  ipAddress: string;
  userAgent: string;
  geoCity: string;
  geoCountry: string;
  /** How the signer proved access, each way by its code; the certificate page names them in its locale. */
  authentication?: AuthenticationMethod[];
  /** With `sms_otp`: the phone the code went to, masked (`+1 ••• ••• 0123`). */
  otpPhone?: string | null;
  /** The signer's consent to electronic records, when given: the exact text, its locale, its SHA-256 and when. */
  consent?: { at: string; locale: string; sha256: string; text: string } | null;
  /** The signer's signature as placed: typed text or a `data:image/…` URL; null when none. */
  signature?: string | null;
}

/** One entry of the document's timeline, from its audit log. */
export interface FinalizeTimelineEntry {
  at: string;
  /** What happened, in words ("Sent", "Viewed by Ada"…). */
  event: string;
  ipAddress: string;
  /** "City, Country", or '' when unknown. */
  location: string;
}

export interface FinalizeField {
  type: string;
  /**
   * How the value is drawn (the field type's `draw` in src/modules/documents-core/field-types.ts):
   * `mark` a signature (drawn PNG or typed text in the signature face), `tick` a check mark for
   * "true", `text` the value in Noto Sans.
   */
  draw: 'mark' | 'tick' | 'text';
  /** 1-based. */
  page: number;
  /** Percent of the displayed page, from its top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  /**
   * Text; for signature/initials either typed text or a drawn signature as a
   * `data:image/png;base64,…` URL; for checkbox "true"/"false".
   */
  value: string | null;
}

/** A file attached by a signer (or identity evidence), listed on the certificate page with its hash. */
export interface FinalizeAttachment {
  name: string;
  contentType: string;
  fileSize: number;
  sha256: string;
  /** Who attached it; '' when unknown. */
  signerName: string;
}

export interface FinalizeInput {
  /** Path of a local temp file holding the original PDF (the caller copies it out of storage first). */
  sourcePath: string;
  /** `verifyUrl`: where anyone can check the signed file (the public /verify page). */
  document: {
    id: string;
    name: string;
    documentHash: string;
    /** SHA-256 of the PDF signers saw when it is not the upload (text tags removed); else null. */
    shownHash?: string | null;
    completedAt: string;
    verifyUrl?: string;
    /**
     * The document's resolved locale (BCP 47), when known: it picks the face of Han characters
     * (Japanese, Korean, Simplified or Traditional Chinese). Without it, the script around the
     * Han text decides (fonts/han.ts).
     */
    locale?: string | null;
    /** The organization's IANA time zone: the certificate gives times in it and in UTC. */
    timeZone?: string;
  };
  signers: FinalizeSigner[];
  fields: FinalizeField[];
  attachments?: FinalizeAttachment[];
  timeline?: FinalizeTimelineEntry[];
}
