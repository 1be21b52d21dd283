import { existsSync, readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';

/** True when something accepts TCP connections on host:port within 2 s. */
function accepts(host: string, port: number): Promise<string | undefined> {
  return new Promise(resolvePromise => {
    const s = netConnect({ host, port });
    s.setTimeout(2000, () => {
      s.destroy();
      resolvePromise('timed out');
    });
    s.once('connect', () => {
      s.end();
      resolvePromise(undefined);
    });
    s.once('error', e => resolvePromise(e.message));
  });
}

/**
 * Fails with the cause when the managers' proxy wiring cannot work, before anything is started or stopped. Without
 * this the managers start fine and fail only at their first Azure call, inside a condition: a proxy that does not
 * listen (`proxyconnect tcp: ... connection refused`), or an `SSL_CERT_FILE` that is missing, which Go does not report
 * at all (it falls back to the certificate directories: `src/crypto/x509/root_unix.go` lines 35-75, Go 1.26) and the
 * proxy's names are then `x509: certificate signed by unknown authority`.
 */
export async function checkAzureEnv(
  env: Record<string, string> = {},
): Promise<void> {
  const problems: string[] = [];
  const bundle = env.SSL_CERT_FILE;
  if (bundle !== undefined) {
    if (!existsSync(bundle))
      problems.push(`SSL_CERT_FILE ${bundle} does not exist`);
    else if (
      !readFileSync(bundle, 'utf8').includes('-----BEGIN CERTIFICATE-----')
    )
      problems.push(`SSL_CERT_FILE ${bundle} holds no PEM certificate`);
  }
  // Go reads HTTPS_PROXY, then https_proxy (net/http ProxyFromEnvironment, golang.org/x/net/http/httpproxy).
  const proxy = env.HTTPS_PROXY ?? env.https_proxy;
  if (proxy) {
    let u: URL | undefined;
    try {
      u = new URL(proxy);
    } catch {
      problems.push(`HTTPS_PROXY ${proxy} is not a URL`);
    }
    if (u) {
      const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      const err = await accepts(u.hostname, port);
      if (err)
        problems.push(
          `HTTPS_PROXY ${proxy} does not accept connections (${err})`,
        );
    }
  }
  if (problems.length)
    throw new Error(
      `the managers' environment cannot reach the (simulated) Azure: ${problems.join(
        '; ',
      )}; nothing was started`,
    );
}
