import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A free TCP port on loopback, so that several management clusters run side by side. */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolvePromise(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** The lower bound of the kernel's ephemeral (outbound) port range: listening ports are picked below it. */
function ephemeralLow(): number {
  try {
    return Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(
        /\s+/,
      )[0],
    );
  } catch {
    return 32768;
  }
}

/** Ports this process handed out: a second pick in the same process never repeats one still starting. */
const handedOut = new Set<number>();

/**
 * A port for a server another process will start, picked at random below the ephemeral range and checked free on
 * all interfaces. `freePort()` hands out ephemeral ports, and any process's outbound connections (the managers'
 * dozens of watches, the backends' HTTP clients) can take such a port between the pick and the bind: seen as ASO's
 * `listen tcp 127.0.0.1:41079: bind: address already in use`, and as a Backstage backend that logged
 * `EADDRINUSE`, kept running, and left its test talking to whichever process held the port.
 *
 * Another process picking the same port at the same moment is still possible (rare in ~12,000 ports): a caller
 * whose server can report the port it bound checks it (see the backends' test harness).
 */
export async function listenPort(
  taken: Set<number> = handedOut,
): Promise<number> {
  const low = 20000;
  const high = Math.max(low + 1000, ephemeralLow()) - 1;
  for (let i = 0; i < 200; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>(resolvePromise => {
      const server = createServer();
      server.unref();
      server.once('error', () => resolvePromise(false));
      server.listen(port, '0.0.0.0', () =>
        server.close(() => resolvePromise(true)),
      );
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  return freePort();
}
