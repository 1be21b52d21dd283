/**
 * Whether a starting manager is ready, or why it is failing: what it logged during this start (klog lines of
 * controller-runtime), its /readyz, and the certificate its webhook server presents.
 */
import { join } from 'node:path';
import { connect } from 'node:tls';
import { httpStatus } from '../probe.ts';
import { isAlive, logSince, logTail } from '../processes.ts';
import type { ManagerName } from './managers.ts';
import type { ControllerPorts } from './state.ts';

/** The message of a klog line (`E1123 11:14:49.860172   31163 main.go:400] "msg" err="..."`), without its header. */
const klogMessage = (line: string) =>
  line.replace(/^[IWEF]\d{4} [^\]]*\] /, '');

/**
 * Why a manager is failing, from what it logged during this start: its last error line (klog `E…`), and the port it
 * found taken. controller-runtime v0.23.3 returns the listener's error from `mgr.Start` (webhook server:
 * `pkg/webhook/server.go` line 237; health probes and metrics likewise), which CAPI and CAPZ log as "problem running manager"
 * before exiting 1 (CAPZ v1.26.0 `main.go` lines 399-402).
 */
function causeOf(text: string): { cause?: string; port?: number } {
  const errors = text.split('\n').filter(l => /^[EF]\d{4} /.test(l));
  const last = errors.at(-1);
  const bind = /listen tcp [^ ]*:(\d+): bind: address already in use/.exec(
    text,
  );
  return {
    cause: last ? klogMessage(last) : undefined,
    port: bind ? Number(bind[1]) : undefined,
  };
}

/**
 * How far a manager's controllers got, from controller-runtime's log lines (v0.23.3
 * `pkg/internal/controller/controller.go`): "Starting EventSource" per watch (line 370), "Starting workers" once all
 * of a controller's sources synced (line 306). A watched kind without its CRD is logged by the kind source as "if kind
 * is a CRD, it should be installed before calling Start" and retried every 10 s (`pkg/internal/source/kind.go` lines
 * 68-82) until the controller's CacheSyncTimeout, 2 min by default (`pkg/controller/controller.go` lines 248-250),
 * ends the manager: its /readyz (CAPI, CAPZ: the webhook server's StartedChecker) is 200 all that while.
 */
function controllerProgress(text: string): {
  waiting: string[];
  started: number;
  missingKind?: string;
} {
  const withSources = new Set<string>();
  const withWorkers = new Set<string>();
  let missingKind: string | undefined;
  for (const line of text.split('\n')) {
    const c = /controller="([^"]+)"/.exec(line)?.[1];
    if (line.includes('"Starting EventSource"') && c) withSources.add(c);
    else if (line.includes('"Starting workers"') && c) withWorkers.add(c);
    else if (
      !missingKind &&
      line.includes(
        'if kind is a CRD, it should be installed before calling Start',
      )
    )
      missingKind = klogMessage(line);
  }
  return {
    waiting: [...withSources].filter(c => !withWorkers.has(c)).sort(),
    started: withWorkers.size,
    missingKind,
  };
}

/**
 * Whether a TLS server on 127.0.0.1:<port> presents a certificate the cluster CA verifies: `ok`, or the error, with
 * `certificate` set when a server answered but its certificate failed verification (OpenSSL's verify codes such as
 * DEPTH_ZERO_SELF_SIGNED_CERT, or Node's ERR_TLS_CERT_ALTNAME_INVALID), which waiting will not mend.
 */
function tlsCheck(
  port: number,
  caPem: string,
): Promise<{ ok: true } | { ok: false; error: string; certificate: boolean }> {
  return new Promise(resolvePromise => {
    const s = connect(
      { host: '127.0.0.1', port, ca: caPem, servername: 'localhost' },
      () => {
        s.end();
        resolvePromise({ ok: true });
      },
    );
    s.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      resolvePromise({
        ok: false,
        // Node's advice to use the system CA does not apply: the cluster CA is the one to trust.
        error: `${e.message.replace(
          /; if the root CA is installed locally.*$/,
          '',
        )}${code ? ` (${code})` : ''}`,
        // Socket errors are E*-codes (ECONNREFUSED while the server starts); verify errors are OpenSSL's names.
        certificate:
          code === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
          (code !== '' && !code.startsWith('E')),
      });
    });
    s.setTimeout(2000, () => {
      s.destroy();
      resolvePromise({ ok: false, error: 'timed out', certificate: false });
    });
  });
}

/** A manager just launched, as the readiness wait watches it. */
export interface StartingManager {
  name: ManagerName;
  pid: number;
  log: string;
  ports: ControllerPorts;
  /** Where this start's output begins in the log (earlier starts in the same state directory appended to it). */
  logStart: number;
  /** How the process ended (`exit code 1`, `signal SIGKILL`), once it has. */
  exited: () => string | undefined;
}

/**
 * Waits until a manager is ready: /readyz, the webhook's TLS, and every controller past its cache sync (a controller
 * stuck before its workers would end the manager later, see controllerProgress). Fails at once, with the cause and
 * the manager's log tail (through `fail`, which also gets the port it found taken), when it exits, watches a kind
 * without a CRD, or presents a certificate the cluster CA does not verify; else after `timeoutMs`.
 */
export async function waitUntilReady(
  p: StartingManager,
  opts: {
    timeoutMs: number;
    caPem: string;
    certDir: string;
    clusterStateDir: string;
    fail: (message: string, takenPort?: number) => Error;
  },
): Promise<void> {
  const m = p.name;
  const { timeoutMs, fail } = opts;
  const withTail = (text: string) =>
    `\n--- ${m} log tail (${p.log}) ---\n${logTail(text)}`;
  const deadline = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    if (p.exited() || !isAlive(p.pid)) {
      const text = logSince(p.log, p.logStart);
      const { cause, port } = causeOf(text);
      const role = port
        ? (Object.keys(p.ports) as Array<keyof ControllerPorts>).find(
            k => p.ports[k] === port,
          )
        : undefined;
      throw fail(
        `${m} manager exited (${p.exited() ?? 'gone'}) while starting: ${
          port
            ? `its ${role ?? ''}${
                role ? ' ' : ''
              }port ${port} is taken by another listener; `
            : ''
        }${cause ?? 'no error logged'}${withTail(text)}`,
        port,
      );
    }
    const text = logSince(p.log, p.logStart);
    const progress = controllerProgress(text);
    if (progress.missingKind)
      throw fail(
        `${m} manager cannot start a controller: a kind it watches has no CRD: ${
          progress.missingKind
        }${withTail(text)}`,
      );
    const tls = await tlsCheck(p.ports.webhook, opts.caPem);
    if (!tls.ok && tls.certificate)
      throw fail(
        `${m} manager's webhook server on 127.0.0.1:${
          p.ports.webhook
        } presents a certificate the cluster CA does not verify: ${
          tls.error
        }; the serving certificate is ${join(
          opts.certDir,
          'tls.crt',
        )}, the cluster CA ${opts.clusterStateDir}/pki/ca.crt: remove ${
          opts.certDir
        } to have it issued again${withTail(text)}`,
      );
    const readyz = await httpStatus(
      `http://127.0.0.1:${p.ports.health}/readyz`,
    );
    if (
      readyz === 200 &&
      tls.ok &&
      progress.started > 0 &&
      !progress.waiting.length
    )
      return;
    if (Date.now() > deadline)
      throw fail(
        `${m} manager not ready after ${timeoutMs} ms: readyz on ${
          p.ports.health
        } ${readyz || 'not answering'}, webhook on ${p.ports.webhook} ${
          tls.ok ? 'ok' : tls.error
        }, controllers ${
          progress.started
            ? `waiting for their caches: ${
                progress.waiting.join(', ') || 'none'
              }`
            : 'not started'
        }${withTail(text)}`,
      );
    await new Promise(r => setTimeout(r, delay));
  }
}
