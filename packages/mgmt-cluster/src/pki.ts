import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
  tokenFile: string;
  /** Static bearer token of the admin user (group system:masters). */
  adminToken: string;
  /**
   * Static bearer token of `capz-backend`, the identity the Backstage backend uses, so that its requests can be told
   * apart from everyone else's (e.g. in the audit log).
   */
  backendToken: string;
}

const openssl = (args: string[]) =>
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * RSA 2048 (the cluster's keys, as kubeadm's default), or P-256: as good for a loopback test server and much quicker to
 * generate on a small machine (capz-sim's endpoints).
 */
export type KeyKind = 'rsa' | 'ec';

const NEW_KEY: Record<KeyKind, string[]> = {
  rsa: ['-newkey', 'rsa:2048', '-nodes'],
  ec: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
};

/** Where a certificate and its new key are written (PEM files). */
export interface CertificateFiles {
  cert: string;
  key: string;
}

/**
 * A new key and a self-signed certificate for it (`openssl req -x509`), valid `days` (default 3650): a CA, or a leaf
 * no CA signed. `extensions` are given as `-addext` (e.g. `basicConstraints=critical,CA:TRUE`).
 */
export function selfSignedCertificate(opts: {
  files: CertificateFiles;
  subject: string;
  keyKind?: KeyKind;
  extensions?: string[];
  days?: number;
}): void {
  openssl([
    'req',
    '-x509',
    ...NEW_KEY[opts.keyKind ?? 'rsa'],
    '-keyout',
    opts.files.key,
    '-out',
    opts.files.cert,
    '-days',
    String(opts.days ?? 3650),
    '-subj',
    opts.subject,
    ...(opts.extensions ?? []).flatMap(e => ['-addext', e]),
  ]);
}

/**
 * A new key and a certificate for it signed by `ca` (`openssl req`, then `openssl x509 -req -CA`, 3650 days): a
 * serving certificate (`extendedKeyUsage=serverAuth` and its `subjectAltName`) or a client one (`clientAuth`). The
 * request goes to `csr` and the `extensions` (one a line) to `extFile`, both kept beside the certificate.
 */
export function issueCertificate(opts: {
  ca: CertificateFiles;
  files: CertificateFiles & { csr: string; extFile: string };
  subject: string;
  extensions: string[];
  keyKind?: KeyKind;
}): void {
  const { ca, files } = opts;
  writeFileSync(files.extFile, opts.extensions.join('\n'));
  openssl([
    'req',
    ...NEW_KEY[opts.keyKind ?? 'rsa'],
    '-keyout',
    files.key,
    '-out',
    files.csr,
    '-subj',
    opts.subject,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    files.csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-out',
    files.cert,
    '-days',
    '3650',
    '-extfile',
    files.extFile,
  ]);
}

/**
 * A throw-away CA, a serving certificate for loopback, a service-account key pair and a static admin token.
 * Generated once per state directory and reused, so a restarted cluster keeps its kubeconfig valid.
 */
export function ensurePki(stateDir: string): Pki {
  const dir = join(stateDir, 'pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = (f: string) => join(dir, f);
  const pki: Pki = {
    dir,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    serverCert: p('apiserver.crt'),
    serverKey: p('apiserver.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
    tokenFile: p('tokens.csv'),
    adminToken: '',
    backendToken: '',
  };
  if (!existsSync(pki.tokenFile)) {
    const ca = { cert: pki.caCert, key: pki.caKey };
    selfSignedCertificate({ files: ca, subject: '/CN=capz-mgmt-cluster-ca' });
    issueCertificate({
      ca,
      files: {
        cert: pki.serverCert,
        key: pki.serverKey,
        csr: p('apiserver.csr'),
        extFile: p('san.ext'),
      },
      subject: '/CN=kube-apiserver',
      extensions: [
        'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc',
        'extendedKeyUsage=serverAuth',
        'keyUsage=digitalSignature,keyEncipherment',
      ],
    });
    openssl(['genrsa', '-out', pki.saKey, '2048']);
    openssl(['rsa', '-in', pki.saKey, '-pubout', '-out', pki.saPub]);
    const token = randomBytes(24).toString('hex');
    writeFileSync(
      pki.tokenFile,
      `${token},capz-admin,capz-admin,"system:masters"\n`,
      { mode: 0o600 },
    );
  }
  let tokens = readFileSync(pki.tokenFile, 'utf8');
  if (!tokens.includes(',capz-backend,')) {
    // Group system:masters for now; the minimal RBAC the backend needs is documented with the read path.
    tokens += `${randomBytes(24).toString(
      'hex',
    )},capz-backend,capz-backend,"system:masters"\n`;
    writeFileSync(pki.tokenFile, tokens, { mode: 0o600 });
  }
  const lines = tokens
    .trim()
    .split('\n')
    .map(l => l.split(','));
  pki.adminToken = lines.find(l => l[1] === 'capz-admin')![0];
  pki.backendToken = lines.find(l => l[1] === 'capz-backend')![0];
  return pki;
}
