/**
 * The simulated Entra ID's TLS material: a throw-away CA and a serving certificate for loopback (SAN IP:127.0.0.1,
 * DNS:localhost), made with the `openssl` CLI like the ARM endpoint's (src/arm/tls.ts). Its own CA, so that trusting
 * the authority (client side and the API server's JWT authenticator) trusts nothing else. Generated once per state
 * directory and reused.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EntraTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

// P-256 keys: quick to generate on a small machine; the token-signing key is a separate RSA key (RS256).
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function ensureEntraTls(stateDir: string): EntraTls {
  const dir = join(stateDir, 'entra-tls');
  const files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'server.crt'), key: join(dir, 'server.key') };
  if (!existsSync(files.key)) {
    // Generated in a private directory, then renamed into place: a concurrent start never sees half of it.
    mkdirSync(stateDir, { recursive: true });
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(tmp, { mode: 0o700 });
    const t = (f: string) => join(tmp, f);
    try {
      openssl(['req', '-x509', ...EC_KEY, '-keyout', t('ca.key'), '-out', t('ca.crt'), '-days', '3650',
        '-subj', '/CN=capz-sim-entra-ca',
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
      writeFileSync(t('san.ext'), [
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        'basicConstraints=CA:FALSE',
        'extendedKeyUsage=serverAuth',
        'keyUsage=critical,digitalSignature',
      ].join('\n'));
      openssl(['req', ...EC_KEY, '-keyout', t('server.key'), '-out', t('server.csr'), '-subj', '/CN=localhost']);
      openssl(['x509', '-req', '-in', t('server.csr'), '-CA', t('ca.crt'), '-CAkey', t('ca.key'), '-CAcreateserial',
        '-out', t('server.crt'), '-days', '3650', '-extfile', t('san.ext')]);
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(files.key)) throw e; // else another process won the race; use its files
    }
  }
  return {
    caPem: readFileSync(files.ca, 'utf8'),
    certPem: readFileSync(files.cert, 'utf8'),
    keyPem: readFileSync(files.key, 'utf8'),
  };
}
