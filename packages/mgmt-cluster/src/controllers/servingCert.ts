import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki, issueCertificate } from '../pki.ts';

/**
 * tls.crt/tls.key for 127.0.0.1 and localhost, signed by the cluster's CA (the CA the API server already trusts for
 * itself, so a webhook's `caBundle` is that CA): one certificate for the three managers' webhook servers. An existing
 * one is kept.
 */
export function issueServingCert(stateDir: string, certDir: string): void {
  const pki = ensurePki(stateDir);
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const crt = join(certDir, 'tls.crt');
  if (existsSync(crt)) return;
  issueCertificate({
    ca: { cert: pki.caCert, key: pki.caKey },
    files: {
      cert: crt,
      key: join(certDir, 'tls.key'),
      csr: join(certDir, 'tls.csr'),
      extFile: join(certDir, 'san.ext'),
    },
    subject: '/CN=127.0.0.1',
    extensions: [
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      'extendedKeyUsage=serverAuth',
      'keyUsage=digitalSignature,keyEncipherment',
    ],
  });
}
