import { X509Certificate } from 'node:crypto';
import type { SigningCertificate } from './certificate.ts';
import type { TimestampInfo } from './cms-parse.ts';
import { hashFile } from './hash-file.ts';
import {
  appendDocumentTimestamp,
  appendDss,
  collectValidationData,
  levelAtLeast,
  signatureTimestamp,
  timestampExpiry,
  type LongTermConfig,
  type PadesLevel,
} from './long-term.ts';
import type { TsaConfig } from './trust-client.ts';

/** The steps of the finalizer past B-B, in level order. */

export interface FinalizeResult {
  sha256: string;
  size: number;
  level: PadesLevel;
  /** When the certificate of the newest timestamp expires (B-T and above), for archive renewal. */
  timestampExpiresAt: string | null;
}

export function stampWith(tsa: TsaConfig, stamps: TimestampInfo[]) {
  return async (signature: Buffer) => {
    const { attribute, info } = await signatureTimestamp(tsa, signature);
    stamps.push(info);
    return [attribute];
  };
}

/** B-LT: the DSS after the signature; B-LTA: a document timestamp after the DSS. */
export async function extendLevel(
  outputPath: string,
  cert: SigningCertificate,
  longTerm: LongTermConfig,
  stamps: TimestampInfo[],
  signed: { sha256: string; size: number },
): Promise<Omit<FinalizeResult, 'level'>> {
  const expiry = stamps.length > 0 ? timestampExpiry(stamps[stamps.length - 1]) : null;
  if (!levelAtLeast(longTerm.level, 'B-LT')) return { ...signed, timestampExpiresAt: expiry };
  const chain = [
    ...cert.chain.map((der) => new X509Certificate(der)),
    ...stamps.flatMap((s) => s.certificates),
  ];
  await appendDss(outputPath, await collectValidationData(chain));
  if (longTerm.level === 'B-LTA') {
    const stamped = await appendDocumentTimestamp(outputPath, longTerm.tsa!);
    return {
      sha256: stamped.sha256,
      size: stamped.size,
      timestampExpiresAt: timestampExpiry(stamped.info),
    };
  }
  return { ...(await hashFile(outputPath)), timestampExpiresAt: expiry };
}
