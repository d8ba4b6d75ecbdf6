import { createHmac } from 'node:crypto';

/** A signer's access code as stored: keyed by the server secret and the signer, never the code. */
export const hashAccessCode = (secret: Buffer, signerId: string, code: string) =>
  createHmac('sha256', secret).update(`access-code:${signerId}:${code}`).digest('hex');
