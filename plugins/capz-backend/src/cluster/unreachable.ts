/**
 * When a management cluster's API server does not answer, and how long a request may wait for it
 * (docs/architecture.md#api-server-outage).
 *
 * client-node 2.0.1 sends every request through undici's fetch (dist/gen/http/isomorphic-fetch.js), over one
 * keep-alive dispatcher per API server here (kubeConfig.ts). A request that gets no HTTP answer rejects with
 * fetch's `TypeError: fetch failed` whose `cause` says why, and never with an ApiException (that needs a status):
 * - nothing listens (the API server's process is gone): `ECONNREFUSED` at once;
 * - the process holds its socket but does not answer (hung, frozen, a partition that still completes handshakes): a
 *   new connection fails after undici's connect timeout, 10 s by default, which runs until the TLS handshake is done
 *   (undici lib/core/connect.js: cleared on `secureConnect`), as `UND_ERR_CONNECT_TIMEOUT`; a request written on a
 *   kept-alive connection waits for its headers up to undici's `headersTimeout`, 300 s by default
 *   (lib/dispatcher/client.js), which is what {@link requestTimeout} cuts short;
 * - the connection drops mid-request (the process killed): `ECONNRESET` or `UND_ERR_SOCKET` ("other side closed").
 */
import type {
  ConfigurationOptions,
  KubeConfig,
  KubernetesObjectApi,
  ObservableMiddleware,
} from '@kubernetes/client-node';

/** The client library's module, as kubeConfig.ts loads it (named here: kubeConfig.ts reaches this file through azureToken.ts). */
type ClientNode = typeof import('@kubernetes/client-node');

/**
 * How long one request to a management cluster's API server may take before it counts as unanswered. A hang detector:
 * the requests here answer in milliseconds (a 500-object page in well under a second, a few seconds on a loaded
 * machine), and without it a request written on a kept-alive connection to a frozen API server waits 300 s.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Why a request got no answer from the API server. */
export interface NoAnswer {
  /** In words, e.g. "connection refused (ECONNREFUSED)". */
  reason: string;
  /**
   * Whether the request may have reached the API server: false when no connection was made (so a write was certainly
   * not applied), true when it was sent and the answer never came (a write may have been applied).
   */
  maybeSent: boolean;
}

const NOT_SENT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  UND_ERR_CONNECT_TIMEOUT:
    'no connection: the connect or TLS handshake timed out',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (DNS unavailable)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

const MAYBE_SENT: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_HEADERS_TIMEOUT: 'no answer (headers timeout)',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped (body timeout)',
};

/** HTTP answers that mean "not now, try again": throttled (429), or a gateway or the server unavailable. */
const RETRY_STATUS: Record<number, string> = {
  429: 'HTTP 429 Too Many Requests',
  502: 'HTTP 502 Bad Gateway',
  503: 'HTTP 503 Service Unavailable',
  504: 'HTTP 504 Gateway Timeout',
};

/**
 * The HTTP status of an error from client-node (ApiException `code`) or elsewhere (`statusCode`), if any. Only
 * 100-599: a DOMException's `code` is a number too (23 for a TimeoutError).
 */
export function httpStatusOf(e: unknown): number | undefined {
  const x = e as { code?: unknown; statusCode?: unknown } | undefined;
  for (const code of [x?.code, x?.statusCode])
    if (typeof code === 'number' && code >= 100 && code <= 599) return code;
  return undefined;
}

/**
 * Whether an error means the API server did not answer (or answered "unavailable, retry"), and why; undefined for
 * an answer (404, 409, 422, ...) and for failures that waiting does not cure (a TLS certificate the CA does not sign,
 * a malformed URL).
 */
export function whyNoAnswer(e: unknown): NoAnswer | undefined {
  const status = httpStatusOf(e);
  if (status !== undefined) {
    const reason = RETRY_STATUS[status];
    // 429 is refused before any work; 502-504 may have been cut off after the server acted.
    return reason ? { reason, maybeSent: status !== 429 } : undefined;
  }
  // fetch's TypeError wraps undici's or the socket's error in `cause` (sometimes twice).
  for (let x: any = e, depth = 0; x && depth < 5; x = x.cause, depth++) {
    // requestTimeout's own reason names its deadline; another timeout (client-node's watch) does not.
    if (x.name === 'TimeoutError')
      return {
        reason: /^no answer within/.test(String(x.message))
          ? String(x.message)
          : 'no answer in time (the request timed out)',
        maybeSent: true,
      };
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (code && NOT_SENT[code])
      return { reason: `${NOT_SENT[code]} (${code})`, maybeSent: false };
    if (code && MAYBE_SENT[code])
      return { reason: `${MAYBE_SENT[code]} (${code})`, maybeSent: true };
  }
  return undefined;
}

/**
 * A client-node middleware that gives every request a deadline: its fetch (answer and body) is aborted after `ms`
 * (RequestContext.setSignal, passed to fetch by dist/gen/http/isomorphic-fetch.js). The Observable form: what both
 * a configuration's `middleware` and the generated APIs' per-call options take.
 */
export function requestTimeout(
  k8s: ClientNode,
  ms = REQUEST_TIMEOUT_MS,
): ObservableMiddleware {
  return {
    pre: context => {
      // AbortSignal.timeout's reason does not say how long it waited; this one does. The timer is not cleared (the
      // body is read after the middleware's `post`): unref'd, it only fires into a settled request.
      const deadline = new AbortController();
      setTimeout(
        () =>
          deadline.abort(
            new DOMException(`no answer within ${ms / 1000} s`, 'TimeoutError'),
          ),
        ms,
      ).unref();
      context.setSignal(deadline.signal);
      return new k8s.Observable(Promise.resolve(context));
    },
    post: response => new k8s.Observable(Promise.resolve(response)),
  };
}

/** Per-call options of client-node's generated APIs that add {@link requestTimeout} to the configured middleware. */
export const withRequestTimeout = (
  k8s: ClientNode,
  ms = REQUEST_TIMEOUT_MS,
): ConfigurationOptions => ({
  middleware: [requestTimeout(k8s, ms)],
  middlewareMergeStrategy: 'append',
});

/**
 * client-node's generic object API with {@link requestTimeout} on every request. Built as
 * `KubernetesObjectApi.makeApiClient` builds it (client-node dist/config.js makeApiClient, dist/object.js), plus the
 * middleware: that API reads the middleware of the configuration it was made with, never per call.
 */
export function objectApiWithTimeout(
  k8s: ClientNode,
  kc: KubeConfig,
  ms = REQUEST_TIMEOUT_MS,
): KubernetesObjectApi {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster in the kubeconfig');
  const api = new k8s.KubernetesObjectApi(
    k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      middleware: [requestTimeout(k8s, ms)],
    }),
  );
  // What makeApiClient does next (protected in the typings): the context's namespace for objects that name none.
  (
    api as unknown as { setDefaultNamespace(k: KubeConfig): void }
  ).setDefaultNamespace(kc);
  return api;
}
