import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

/*
 * A PDF that is cheap to send and dear to verify: `signatures` signature fields, each with a real
 * (parseable) CMS whose byte range is the whole file. With `shared` ranges every field names one
 * signature dictionary (one range: a verifier that hashes each range once reads the file once);
 * with `distinct` ones each field has its own dictionary whose range skips a different number of
 * leading bytes, so no two digests can be shared and a verifier hashes the file once per signature
 * (50 × 50 MB is 2.5 GB of SHA-256). Its bulk is an unreferenced stream of zeros, so it is
 * produced 64 KB at a time and never held whole. Used by the verify tests and
 * `npm run bench -- hostile`.
 */

/** A detached CMS SignedData over other bytes, with a self-signed certificate: it parses, it never verifies. */
export function detachedCms(): Buffer {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(
    privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  );
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3_600_000);
  const subject = [{ name: 'commonName', value: 'Signature bomb' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(key, forge.md.sha256.create());
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer('not this file');
  p7.addCertificate(cert);
  p7.addSigner({
    key,
    certificate: cert,
    digestAlgorithm: forge.pki.oids.sha256,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
      { type: forge.pki.oids.messageDigest },
    ],
  });
  p7.sign({ detached: true });
  return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
}

/** The PDF, `size` bytes exactly, 64 KB at a time. */
export async function* signatureBombPdf(
  size: number,
  signatures = 50,
  cms: Buffer = detachedCms(),
  ranges: 'shared' | 'distinct' = 'shared',
): AsyncGenerator<Buffer> {
  const width = 12;
  const digits = (n: number) => String(n).padStart(width, '0');
  const dictionaries = ranges === 'shared' ? 1 : signatures;
  const sigObj = 4 + signatures;
  const padObj = sigObj + dictionaries;
  // Dictionary i covers the file from byte i on (its gap is the first i bytes).
  const sigDict = (i: number) =>
    `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 ${digits(0)} ${digits(i)} ${digits(size - i)}] /Contents <${cms.toString('hex')}> >>`;
  const objects: string[] = [
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${Array.from({ length: signatures }, (_, i) => `${4 + i} 0 R`).join(' ')}] >> >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    ...Array.from(
      { length: signatures },
      (_, i) =>
        `<< /FT /Sig /T (Signature ${i + 1}) /V ${sigObj + (ranges === 'shared' ? 0 : i)} 0 R >>`,
    ),
    ...Array.from({ length: dictionaries }, (_, i) => sigDict(i)),
  ];
  let head = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(head, 'latin1'));
    head += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  offsets.push(Buffer.byteLength(head, 'latin1'));
  const xrefFor = (xrefAt: number) =>
    `xref\n0 ${padObj + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer\n<< /Size ${padObj + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  const streamHead = (length: number) =>
    `${padObj} 0 obj\n<< /Length ${String(length).padStart(width, '0')} >>\nstream\n`;
  const streamTail = '\nendstream\nendobj\n';
  const fixed =
    Buffer.byteLength(head, 'latin1') +
    Buffer.byteLength(streamHead(0), 'latin1') +
    streamTail.length;
  // The xref's length depends on the digits of its own offset: settle them (at most two rounds).
  let xrefAt = size;
  for (let round = 0; round < 3; round++)
    xrefAt = size - Buffer.byteLength(xrefFor(xrefAt), 'latin1');
  const padding = xrefAt - fixed;
  if (padding < 0 || xrefAt + Buffer.byteLength(xrefFor(xrefAt), 'latin1') !== size)
    throw new Error(`cannot make a PDF of exactly ${size} bytes`);
  yield Buffer.from(head + streamHead(padding), 'latin1');
  const zeros = Buffer.alloc(64 * 1024);
  for (let left = padding; left > 0; left -= zeros.length)
    yield left >= zeros.length ? zeros : zeros.subarray(0, left);
  yield Buffer.from(streamTail + xrefFor(xrefAt), 'latin1');
}
