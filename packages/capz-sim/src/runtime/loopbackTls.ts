/**
 * TLS material for the simulator's HTTPS endpoints (ARM, Entra ID): a throw-away CA and a serving certificate for
 * loopback (SAN IP:127.0.0.1, DNS:localhost), made with the `openssl` CLI like packages/mgmt-cluster/src/pki.ts.
 * One CA per endpoint, so that trusting one (e.g. the Entra authority) trusts nothing else. Generated once per state
 * directory and reused, so clients that trusted the CA keep working across restarts.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export interface LoopbackTls {
  dir: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

const openssl = (args: string[]) =>
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

// P-256 keys: as good as RSA for a loopback test server and much quicker to generate on a small machine.
const EC_KEY = [
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
];

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
      openssl([
        'req',
        '-x509',
        ...EC_KEY,
        '-keyout',
        t('ca.key'),
        '-out',
        t('ca.crt'),
        '-days',
        '3650',
        '-subj',
        `/CN=capz-sim-${name}-ca`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ]);
      writeFileSync(
        t('san.ext'),
        [
          san,
          'basicConstraints=CA:FALSE',
          'extendedKeyUsage=serverAuth',
          'keyUsage=critical,digitalSignature',
        ].join('\n'),
      );
      openssl([
        'req',
        ...EC_KEY,
        '-keyout',
        t('server.key'),
        '-out',
        t('server.csr'),
        '-subj',
        '/CN=localhost',
      ]);
      openssl([
        'x509',
        '-req',
        '-in',
        t('server.csr'),
        '-CA',
        t('ca.crt'),
        '-CAkey',
        t('ca.key'),
        '-CAcreateserial',
        '-out',
        t('server.crt'),
        '-days',
        '3650',
        '-extfile',
        t('san.ext'),
      ]);
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
