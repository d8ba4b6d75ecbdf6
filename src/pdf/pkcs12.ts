import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

/** The key and certificate chain that sign finished documents, parsed once. */
export interface SigningCertificate {
  readonly privateKey: KeyObject;
  /** DER certificates, the signing certificate first, then its issuers. */
  readonly chain: readonly Buffer[];
  readonly certificate: X509Certificate;
  /** `configured`: SIGNING_CERT_P12; `self-signed`: generated under DATA_DIR. */
  readonly source: 'configured' | 'self-signed';
}

export class SigningCertificateError extends Error {
  override name = 'SigningCertificateError';
}

/**
 * Opens a PKCS#12 file. forge decrypts it (legacy 3DES/RC2 and modern AES/PBES2 alike);
 * node:crypto then takes the key, so RSA and EC keys both work.
 */
export function parseP12(
  der: Buffer,
  password: string,
  source: SigningCertificate['source'],
): SigningCertificate {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der.toString('binary')), false, password);
  } catch (err) {
    throw new SigningCertificateError(
      `cannot open the signing certificate: ${(err as Error).message}`,
    );
  }
  const toDer = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');

  const keys: KeyObject[] = [];
  for (const bagType of [forge.pki.oids.pkcs8ShroudedKeyBag, forge.pki.oids.keyBag]) {
    for (const bag of p12.getBags({ bagType })[bagType] ?? []) {
      // forge only models RSA keys; for others it hands back the PKCS#8 structure.
      const pkcs8 = bag.key
        ? toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)))
        : bag.asn1
          ? toDer(bag.asn1)
          : null;
      if (pkcs8) keys.push(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
    }
  }
  const certs: X509Certificate[] = [];
  for (const bag of p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ??
    []) {
    const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
    if (asn1) certs.push(new X509Certificate(toDer(asn1)));
  }

  for (const privateKey of keys) {
    const leaf = certs.find((c) => c.checkPrivateKey(privateKey));
    if (!leaf) continue;
    const type = privateKey.asymmetricKeyType;
    if (type !== 'rsa' && type !== 'ec') {
      throw new SigningCertificateError(
        `unsupported signing key type ${type}: use an RSA or EC key`,
      );
    }
    return {
      privateKey,
      chain: orderChain(leaf, certs).map((c) => c.raw),
      certificate: leaf,
      source,
    };
  }
  throw new SigningCertificateError('the PKCS#12 file holds no private key with its certificate');
}

/** Leaf first, then each issuer found in the file; certificates outside the chain are left out. */
function orderChain(leaf: X509Certificate, all: X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  for (let current = leaf; chain.length <= all.length; ) {
    const issuer = all.find(
      (c) => !chain.includes(c) && current.checkIssued(c) && current.verify(c.publicKey),
    );
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

/** A PKCS#12 file (AES-256) holding an RSA key and its chain, encrypted with `password`. */
export function encodeRsaP12(
  privateKey: KeyObject,
  chain: readonly Buffer[],
  password: string,
): Buffer {
  const forgeKey = forge.pki.privateKeyFromPem(
    privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  );
  const certs = chain.map((der) =>
    forge.pki.certificateFromAsn1(forge.asn1.fromDer(der.toString('binary'))),
  );
  const p12 = forge.pkcs12.toPkcs12Asn1(forgeKey, certs, password, {
    algorithm: 'aes256',
    friendlyName: 'Signet signing certificate',
  });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}
