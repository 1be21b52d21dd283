/**
 * TLS material for the simulator's HTTPS endpoints (ARM, Entra ID): a throw-away CA and a serving certificate for
 * loopback (SAN IP:127.0.0.1, DNS:localhost), made with packages/mgmt-cluster/src/pki.ts
 * (P-256 keys).
 * One CA per endpoint, so that trusting one (e.g. the Entra authority) trusts nothing else. Generated once per state
 * directory and reused, so clients that trusted the CA keep working across restarts.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  issueCertificate,
  selfSignedCertificate,
} from '@internal/mgmt-cluster/pki';

export interface LoopbackTls {
  dir: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * `name` names the folder (`<name>-tls`) and the CA (`capz-sim-<name>-ca`). `dnsNames` are added to the serving
 * certificate's SANs (the proxy serves real Azure host names with it: src/proxy/server.ts); a folder made for other
 * names is made again.
 */
export function ensureLoopbackTls(
  stateDir: string,
  name: string,
  dnsNames: string[] = [],
): LoopbackTls {
  const dir = join(stateDir, `${name}-tls`);
  const files = {
    ca: join(dir, 'ca.crt'),
    cert: join(dir, 'server.crt'),
    key: join(dir, 'server.key'),
    san: join(dir, 'san.ext'),
  };
  const san = `subjectAltName=${[
    'IP:127.0.0.1',
    'DNS:localhost',
    ...dnsNames.map(n => `DNS:${n}`),
  ].join(',')}`;
  if (
    existsSync(files.key) &&
    existsSync(files.san) &&
    readFileSync(files.san, 'utf8').split('\n')[0] !== san
  ) {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!existsSync(files.key)) {
    // Generate in a private directory and rename it into place, so a concurrent start never sees half a PKI.
    mkdirSync(stateDir, { recursive: true });
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(tmp, { mode: 0o700 });
    const t = (f: string) => join(tmp, f);
    try {
      const ca = { cert: t('ca.crt'), key: t('ca.key') };
      selfSignedCertificate({
        files: ca,
        subject: `/CN=capz-sim-${name}-ca`,
        keyKind: 'ec',
        extensions: [
          'basicConstraints=critical,CA:TRUE',
          'keyUsage=critical,keyCertSign,cRLSign',
        ],
      });
      issueCertificate({
        ca,
        files: {
          cert: t('server.crt'),
          key: t('server.key'),
          csr: t('server.csr'),
          extFile: t('san.ext'),
        },
        subject: '/CN=localhost',
        keyKind: 'ec',
        extensions: [
          san,
          'basicConstraints=CA:FALSE',
          'extendedKeyUsage=serverAuth',
          'keyUsage=critical,digitalSignature',
        ],
      });
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(files.key)) throw e; // else another process won the race; use its files
    }
  }
  return {
    dir,
    caPem: readFileSync(files.ca, 'utf8'),
    certPem: readFileSync(files.cert, 'utf8'),
    keyPem: readFileSync(files.key, 'utf8'),
  };
}
