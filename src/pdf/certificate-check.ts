import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadSigningCertificate, type SigningCertConfig } from './certificate.ts';

/**
 * Whether the signing certificate opens (readable file, right password, a key with its
 * certificate), for `/readyz` and the server's start. The file is parsed again only when it
 * changed (modification time, size, inode), so a probe every few seconds costs one stat.
 */
export class CertificateCheck {
  private last: { stamp: string; problem: Promise<string | null> } | null = null;

  /** `config`: also what sealing passes to its thread (finalize-worker.ts). */
  constructor(readonly config: SigningCertConfig) {}

  private file(): string {
    return this.config.signingCertP12 ?? path.join(this.config.dataDir, 'signing-cert.p12');
  }

  /** null when the certificate can sign; otherwise why not, in one sentence. */
  async problem(): Promise<string | null> {
    const info = await stat(this.file()).catch(() => null);
    const stamp = info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'missing';
    if (this.last?.stamp !== stamp) {
      this.last = {
        stamp,
        problem: loadSigningCertificate(this.config).then(
          () => null,
          (err: unknown) => (err instanceof Error ? err.message : String(err)),
        ),
      };
    }
    return this.last.problem;
  }
}
