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
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      pki.caKey,
      '-out',
      pki.caCert,
      '-days',
      '3650',
      '-subj',
      '/CN=capz-mgmt-cluster-ca',
    ]);
    const ext = p('san.ext');
    writeFileSync(
      ext,
      [
        'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc',
        'extendedKeyUsage=serverAuth',
        'keyUsage=digitalSignature,keyEncipherment',
      ].join('\n'),
    );
    const csr = p('apiserver.csr');
    openssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      pki.serverKey,
      '-out',
      csr,
      '-subj',
      '/CN=kube-apiserver',
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      pki.caCert,
      '-CAkey',
      pki.caKey,
      '-CAcreateserial',
      '-out',
      pki.serverCert,
      '-days',
      '3650',
      '-extfile',
      ext,
    ]);
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
