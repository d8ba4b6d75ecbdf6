import { readTimestampToken } from './cms-parse.ts';
import {
  appendDocumentTimestamp,
  appendDss,
  collectValidationData,
  timestampExpiry,
} from './long-term.ts';
import { PdfFile } from './reader.ts';
import type { TsaConfig } from './trust-client.ts';
import { lastDocumentTimestamp } from './verify.ts';

/**
 * Archive renewal: the validation data of the file's newest document timestamp into the DSS,
 * then a fresh document timestamp over everything. Appends to `path`.
 */
export async function renewArchive(
  path: string,
  tsa: TsaConfig,
): Promise<{ sha256: string; size: number; timestampExpiresAt: string | null }> {
  const file = PdfFile.open(path);
  let token: Buffer | null;
  try {
    token = lastDocumentTimestamp(file);
  } finally {
    file.close();
  }
  if (!token) throw new Error('the file has no document timestamp to renew');
  const previous = readTimestampToken(token, () => Buffer.alloc(0));
  await appendDss(path, await collectValidationData(previous.certificates));
  const stamped = await appendDocumentTimestamp(path, tsa);
  return {
    sha256: stamped.sha256,
    size: stamped.size,
    timestampExpiresAt: timestampExpiry(stamped.info),
  };
}
