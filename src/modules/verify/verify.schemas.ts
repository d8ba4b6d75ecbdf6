import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';

const Certificate = Type.Object(
  {
    subject: Type.String(),
    issuer: Type.String(),
    serialNumber: Type.String({ description: 'Lower-case hex' }),
    notBefore: Type.String({ format: 'date-time' }),
    notAfter: Type.String({ format: 'date-time' }),
    selfSigned: Type.Boolean(),
  },
  {
    description: "The signer's certificate; null when the signature carries none that can be read",
  },
);

const Timestamp = Type.Object(
  {
    time: Type.String({
      description: "The authority's time (ISO 8601); empty when the token is unreadable",
    }),
    authority: Type.String({
      description: "Common name of the time-stamping authority's certificate",
    }),
    valid: Type.Boolean({
      description: 'The token is signed by its authority and stamps this signature',
    }),
  },
  { description: 'The RFC 3161 signature timestamp (PAdES B-T), or null' },
);

const SignatureReport = Type.Object({
  valid: Type.Boolean({
    description: 'The signed bytes are unchanged and the signature verifies with the certificate',
  }),
  coversWholeDocument: Type.Boolean({
    description: 'The signature covers every byte of the file (nothing was appended after it)',
  }),
  level: Nullable(StringEnum(['B-B', 'B-T', 'B-LT', 'B-LTA'] as const), {
    description:
      'PAdES baseline level reached; null for a signature that is not PAdES (e.g. adbe.pkcs7.detached) or not valid',
  }),
  signedAt: Nullable(Type.String({ format: 'date-time' }), {
    description:
      "The timestamp's time when a valid one is present, else the time the signer claimed (/M), else null",
  }),
  certificate: Nullable(Certificate),
  timestamp: Nullable(Timestamp),
  revocationEmbedded: Type.Boolean({
    description: "The file's DSS holds an OCSP response or CRL for the signer's certificate",
  }),
});

const VerifyDocument = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Type.String(),
    completedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  {
    description:
      "Your organization's document whose signed file or original has this file's SHA-256, or null",
  },
);

export const VerificationReport = Type.Object({
  signatures: Type.Array(SignatureReport, {
    description:
      'Each signature field, in the order of the form; document timestamps (ETSI.RFC3161) are not listed, they raise `level` to B-LTA',
  }),
  modifiedAfterLastSignature: Type.Boolean({
    description:
      'Something other than validation data (a DSS) was added after the last signature or document timestamp',
  }),
  document: Nullable(VerifyDocument),
});
