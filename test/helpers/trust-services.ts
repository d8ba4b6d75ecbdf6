import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Real trust services on 127.0.0.1 for tests: a test CA generated at run time (never
 * committed), an RFC 3161 time-stamping authority (`openssl ts -reply`), an OCSP responder
 * (`openssl ocsp`) and a CRL server (`openssl ca -gencrl`), behind one node:http server.
 * Each answer is made by Debian's openssl, not by Signet's code.
 */

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
export const NO_OPENSSL_REASON =
  'trust-service tests skipped: openssl not found (apt-get install -y openssl)';

const run = promisify(execFile);

export type ServiceMode = 'ok' | 'down' | 'garbage';

export interface TrustServices {
  dir: string;
  url: string;
  tsaUrl: string;
  /** PKCS#12 of a signing certificate issued by the test CA, naming the OCSP responder and the CRL. */
  signingP12: string;
  signingPassword: string;
  caPem: string;
  tsaPem: string;
  /** Requests served, per service. */
  counts: { tsa: number; ocsp: number; crl: number };
  /** `Authorization` headers the TSA received. */
  tsaAuthorizations: Array<string | undefined>;
  mode: { tsa: ServiceMode; ocsp: ServiceMode; crl: ServiceMode };
  /** Marks the signing certificate revoked in the CA's database (OCSP and CRL answer so from now on). */
  revokeSigningCertificate(): void;
  close(): Promise<void>;
}

const SERIALS = { signing: '1001', tsa: '1002', ocsp: '1003' } as const;

export async function startTrustServices(
  options: { tsaCertDays?: number } = {},
): Promise<TrustServices> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'signet-pki-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const counts = { tsa: 0, ocsp: 0, crl: 0 };
  const tsaAuthorizations: Array<string | undefined> = [];
  const mode: TrustServices['mode'] = { tsa: 'ok', ocsp: 'ok', crl: 'ok' };
  let seq = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const service = (req.url ?? '').split('?')[0].slice(1) as 'tsa' | 'ocsp' | 'crl';
      if (!(service in counts)) return void res.writeHead(404).end();
      counts[service]++;
      if (service === 'tsa') tsaAuthorizations.push(req.headers.authorization);
      if (mode[service] === 'down') return void req.socket.destroy();
      if (mode[service] === 'garbage')
        return void res
          .writeHead(200, { 'content-type': 'application/octet-stream' })
          .end(Buffer.from('<html>not a reply</html>'));
      const id = ++seq;
      const answer = async (): Promise<[string, Buffer]> => {
        if (service === 'crl') {
          await run(
            'openssl',
            ['ca', '-gencrl', '-config', 'openssl.cnf', '-out', `crl-${id}.pem`],
            { cwd: dir },
          );
          await run(
            'openssl',
            ['crl', '-in', `crl-${id}.pem`, '-outform', 'DER', '-out', `crl-${id}.der`],
            { cwd: dir },
          );
          return ['application/pkix-crl', readFileSync(path.join(dir, `crl-${id}.der`))];
        }
        writeFileSync(path.join(dir, `req-${id}.der`), Buffer.concat(chunks));
        if (service === 'tsa') {
          await run(
            'openssl',
            [
              'ts',
              '-reply',
              '-config',
              'openssl.cnf',
              '-queryfile',
              `req-${id}.der`,
              '-out',
              `resp-${id}.der`,
            ],
            { cwd: dir },
          );
          return ['application/timestamp-reply', readFileSync(path.join(dir, `resp-${id}.der`))];
        }
        await run(
          'openssl',
          [
            'ocsp',
            '-index',
            'index.txt',
            '-CA',
            'ca.pem',
            '-rsigner',
            'ocsp.pem',
            '-rkey',
            'ocsp.key',
            '-reqin',
            `req-${id}.der`,
            '-respout',
            `resp-${id}.der`,
            '-ndays',
            '7',
          ],
          { cwd: dir },
        );
        return ['application/ocsp-response', readFileSync(path.join(dir, `resp-${id}.der`))];
      };
      answer().then(
        ([type, body]) => res.writeHead(200, { 'content-type': type }).end(body),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  writeFileSync(path.join(dir, 'openssl.cnf'), opensslConfig(dir, url));
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'crlnumber'), '01\n');
  writeFileSync(path.join(dir, 'tsaserial'), '01\n');
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '3650',
    '-subj',
    '/CN=Signet Test Root CA/O=Signet Tests',
    '-config',
    'openssl.cnf',
    '-extensions',
    'v3_ca',
  );
  const issue = (name: keyof typeof SERIALS, subject: string, days: number) => {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${SERIALS[name]}`,
      '-days',
      String(days),
      '-extfile',
      'openssl.cnf',
      '-extensions',
      `ext_${name}`,
      '-out',
      `${name}.pem`,
    );
    const enddate = openssl('x509', '-in', `${name}.pem`, '-noout', '-enddate')
      .toString()
      .trim()
      .replace('notAfter=', '');
    const end = new Date(enddate);
    const yymmdd = end.toISOString().replace(/[-:T]/g, '').slice(2, 14);
    writeFileSync(
      path.join(dir, 'index.txt'),
      `V\t${yymmdd}Z\t\t${SERIALS[name]}\tunknown\t${subject}\n`,
      { flag: 'a' },
    );
  };
  issue('signing', '/CN=Acme Signing Test/O=Acme', 365);
  issue('tsa', '/CN=Signet Test TSA/O=Signet Tests', options.tsaCertDays ?? 730);
  issue('ocsp', '/CN=Signet Test OCSP Responder/O=Signet Tests', 365);
  const signingPassword = 'test-signing';
  openssl(
    'pkcs12',
    '-export',
    '-inkey',
    'signing.key',
    '-in',
    'signing.pem',
    '-certfile',
    'ca.pem',
    '-passout',
    `pass:${signingPassword}`,
    '-out',
    'signing.p12',
  );

  return {
    dir,
    url,
    tsaUrl: `${url}/tsa`,
    signingP12: path.join(dir, 'signing.p12'),
    signingPassword,
    caPem: path.join(dir, 'ca.pem'),
    tsaPem: path.join(dir, 'tsa.pem'),
    counts,
    tsaAuthorizations,
    mode,
    revokeSigningCertificate() {
      const index = path.join(dir, 'index.txt');
      const revokedAt = new Date().toISOString().replace(/[-:T]/g, '').slice(2, 14);
      const lines = readFileSync(index, 'utf8')
        .split('\n')
        .map((l) =>
          l.includes(`\t${SERIALS.signing}\t`)
            ? l.replace(/^V\t([^\t]+)\t\t/, `R\t$1\t${revokedAt}Z\t`)
            : l,
        );
      writeFileSync(index, lines.join('\n'));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function opensslConfig(dir: string, url: string): string {
  return `
[ req ]
distinguished_name = req_dn
[ req_dn ]
[ v3_ca ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ ca ]
default_ca = ca_default
[ ca_default ]
database = ${dir}/index.txt
crlnumber = ${dir}/crlnumber
certificate = ${dir}/ca.pem
private_key = ${dir}/ca.key
default_md = sha256
default_crl_days = 7
[ ext_signing ]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation
extendedKeyUsage = emailProtection
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${url}/ocsp
crlDistributionPoints = URI:${url}/crl
[ ext_tsa ]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
crlDistributionPoints = URI:${url}/crl
[ ext_ocsp ]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,OCSPSigning
noCheck = ignored
[ tsa ]
default_tsa = tsa_default
[ tsa_default ]
serial = ${dir}/tsaserial
crypto_device = builtin
signer_cert = ${dir}/tsa.pem
certs = ${dir}/ca.pem
signer_key = ${dir}/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}
