/**
 * Errors of AKS discovery. Each carries `statusCode`, which Backstage's error middleware uses as the HTTP status
 * (MiddlewareFactory.error reads `statusCode` before the error name), so the router needs no mapping of its own:
 * - AzureCredentialError: the chosen ASO credential Secret is missing (404) or not usable by this backend (400).
 * - AzureRequestError: ARM refused what the request named (docs/azure-facts.md#arm-error-classes): a subscription
 *   ARM does not know or the credential cannot see (404 `SubscriptionNotFound`), a malformed subscription id (400
 *   `InvalidSubscriptionId`), a region the provider does not offer (400, raised by AksDiscovery with the regions ARM
 *   offers). The user's mistake, in the user's words.
 * - AzureServiceError: Entra ID or ARM refused the credential or failed (502), or is throttling / unavailable (503,
 *   with `retryAfterSeconds`). `code` is Entra's `AADSTSnnnn` or ARM's error code (`AuthorizationFailed`, ...).
 * Messages never contain secret values. A route's answer to a 503 carries `Retry-After` through {@link retryAfterHeader}.
 */
import type {
  PipelinePolicy,
  PipelineResponse,
} from '@azure/core-rest-pipeline';
import type { TokenCredential } from '@azure/identity';
import type { ErrorRequestHandler } from 'express';

/** The ASO credential Secret is missing, incomplete, or of a kind this backend cannot use. */
export class AzureCredentialError extends Error {
  readonly statusCode: 400 | 404;

  constructor(message: string, statusCode: 400 | 404 = 400) {
    super(message);
    this.name = 'AzureCredentialError';
    this.statusCode = statusCode;
  }
}

/** Entra ID or ARM answered with an error (or could not be reached). */
export class AzureServiceError extends Error {
  readonly statusCode: 502 | 503;
  readonly service: 'Entra ID' | 'ARM';
  /** `AADSTS7000215`, `AuthorizationFailed`, `ECONNREFUSED`, ... when known. */
  readonly code?: string;
  /** With 503: when to try again (ARM's `Retry-After`, or a default), for the answer's `Retry-After` header. */
  readonly retryAfterSeconds?: number;

  constructor(
    service: 'Entra ID' | 'ARM',
    message: string,
    opts: {
      code?: string;
      statusCode?: 502 | 503;
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'AzureServiceError';
    this.service = service;
    this.code = opts.code;
    this.statusCode = opts.statusCode ?? 502;
    if (opts.retryAfterSeconds !== undefined)
      this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** ARM refused what the request named: a subscription or region it does not offer (see the module comment). */
export class AzureRequestError extends Error {
  readonly statusCode: 400 | 404;
  /** ARM's code: `SubscriptionNotFound`, `InvalidSubscriptionId`, `NoRegisteredProviderFound`, ... */
  readonly code: string;
  /** The request's input ARM refused. */
  readonly field: 'subscriptionId' | 'location';
  /** What ARM offers instead, when known (the subscription's regions). */
  readonly offered?: string[];

  constructor(
    message: string,
    opts: {
      statusCode: 400 | 404;
      code: string;
      field: 'subscriptionId' | 'location';
      offered?: string[];
    },
  ) {
    super(message);
    this.name = 'AzureRequestError';
    this.statusCode = opts.statusCode;
    this.code = opts.code;
    this.field = opts.field;
    if (opts.offered) this.offered = opts.offered;
  }
}

/** ARM's codes for a region the resource provider does not offer (docs/azure-facts.md#arm-error-classes). */
export const LOCATION_CODES = new Set([
  'NoRegisteredProviderFound',
  'LocationNotAvailableForResourceType',
  'InvalidLocation',
  'LocationNotAvailable',
]);

/** At most this long is waited for a throttled ARM call before answering 503 (one retry, docs/azure-facts.md#arm-throttling). */
export const MAX_RETRY_WAIT_SECONDS = 5;
/** What the user is told to wait when ARM's 429 or 503 has no Retry-After. */
export const DEFAULT_RETRY_AFTER_SECONDS = 10;
/**
 * How long one ARM request may take before it is given up. The SDK sets no timeout (`PipelineRequest.timeout`
 * defaults to 0, "disables the timeout"): an ARM or proxy that accepts the connection and never answers would hold
 * the user's request, and a job's step, open forever. Its abort is not retried by the SDK's retry policy.
 */
export const ARM_REQUEST_TIMEOUT_MS = 30_000;

/** A per-retry policy giving every ARM request a bound (see {@link ARM_REQUEST_TIMEOUT_MS}) unless it has its own. */
export function requestTimeout(ms: number): PipelinePolicy {
  return {
    name: 'capz-request-timeout',
    sendRequest: (request, next) => {
      if (!request.timeout) request.timeout = ms;
      return next(request);
    },
  };
}

/** ARM's `Retry-After` (seconds or an HTTP date; `retry-after-ms` / `x-ms-retry-after-ms` first), in seconds. */
export function retryAfterSeconds(
  headers: { get(name: string): string | undefined } | undefined,
): number | undefined {
  if (!headers) return undefined;
  for (const [name, factor] of [
    ['retry-after-ms', 1 / 1000],
    ['x-ms-retry-after-ms', 1 / 1000],
    ['retry-after', 1],
  ] as const) {
    const v = headers.get(name)?.trim();
    if (!v) continue;
    if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * factor);
    if (name === 'retry-after') {
      const at = Date.parse(v);
      if (Number.isFinite(at))
        return Math.max(0, Math.ceil((at - Date.now()) / 1000));
    }
  }
  return undefined;
}

interface RestErrorLike {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  request?: object;
  response?: {
    bodyAsText?: string | null;
    headers?: { get(name: string): string | undefined };
  };
}

/**
 * ARM's error bodies by request: paged operations replace ARM's message with "Pagination failed with unexpected
 * statusCode 403" and keep only the parsed code, so this per-call policy remembers the body of every error response.
 */
const errorBodies = new WeakMap<object, string>();
/** And their Retry-After (a 429 or 503 the pager turned into "Pagination failed"). */
const errorRetryAfter = new WeakMap<object, number>();
export const keepErrorBodies: PipelinePolicy = {
  name: 'capz-keep-arm-error-bodies',
  async sendRequest(request, next) {
    const response = await next(request);
    if (response.status >= 400 && response.bodyAsText)
      errorBodies.set(request, response.bodyAsText);
    const wait = retryAfterSeconds(response.headers);
    if (response.status >= 400 && wait !== undefined)
      errorRetryAfter.set(request, wait);
    return response;
  },
};

/**
 * Thrown by {@link limitRetryAfter} inside the SDK's retry loop (not a RestError, so the SDK does not retry it): ARM
 * asked for a wait longer than {@link MAX_RETRY_WAIT_SECONDS}. toAzureServiceError makes it a 503.
 */
class ThrottledResponse extends Error {
  constructor(
    readonly response: PipelineResponse,
    readonly retryAfter: number,
  ) {
    super(`ARM answered ${response.status}; retry after ${retryAfter} s`);
    this.name = 'ThrottledResponse';
  }
}

/**
 * A per-retry policy: a 429 or 503 whose Retry-After is longer than {@link MAX_RETRY_WAIT_SECONDS} is not waited for
 * (the SDK's throttling retry would wait as long as ARM says); a shorter one is left to the SDK's retry policy, which
 * waits and tries once more (`retryOptions.maxRetries: 1`).
 */
export const limitRetryAfter: PipelinePolicy = {
  name: 'capz-limit-retry-after',
  async sendRequest(request, next) {
    const response = await next(request);
    if (response.status === 429 || response.status === 503) {
      const wait = retryAfterSeconds(response.headers);
      if (wait !== undefined && wait > MAX_RETRY_WAIT_SECONDS) {
        if (response.bodyAsText) errorBodies.set(request, response.bodyAsText);
        throw new ThrottledResponse(response, wait);
      }
    }
    return response;
  },
};

/**
 * What the last Entra ID request of one credential ended with, when it was a fault the user should wait out: a 429 or
 * 503 (with Entra's `Retry-After`, if any) or no answer within the request bound. Written by the credential's pipeline
 * policy ({@link entraTokenBounds}), read by its guard after a failed `getToken`.
 */
interface EntraFault {
  kind: 'throttled' | 'unavailable' | 'timeout';
  /** Counts faults, so a guard knows one was recorded during its own call. */
  seq: number;
  retryAfter?: number;
  timeoutMs?: number;
}

/**
 * Thrown by a guarded credential's `getToken` when Entra ID throttled, was unavailable or did not answer in time.
 * MSAL turns any error of its network client into a bare `network_error` (msal-common `sendPostRequest`), and a 429 or
 * 503 that reaches it into a ServerError that names no status, so the guard rethrows what the pipeline recorded.
 * toAzureServiceError makes it a 503 naming Entra ID.
 */
export class EntraUnavailableError extends Error {
  readonly kind: EntraFault['kind'];
  readonly retryAfterSeconds: number;

  constructor(fault: EntraFault) {
    const seconds = Math.max(
      1,
      fault.retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS,
    );
    super(
      fault.kind === 'timeout'
        ? `Entra ID did not answer a token request within ${Math.ceil(
            (fault.timeoutMs ?? 0) / 1000,
          )} s; try again in ${seconds} s`
        : `Entra ID is ${
            fault.kind === 'throttled'
              ? 'throttling token requests (429)'
              : 'unavailable (503)'
          }; try again in ${seconds} s`,
    );
    this.name = 'EntraUnavailableError';
    this.kind = fault.kind;
    this.retryAfterSeconds = seconds;
  }
}

/** The token-request bounds for one @azure/identity credential; see {@link entraTokenBounds}. */
export interface EntraTokenBounds {
  /** Spread into the credential's options: core-client's `retryOptions` and `additionalPolicies`. */
  options: {
    retryOptions: { maxRetries: number };
    additionalPolicies: Array<{
      position: 'perRetry';
      policy: PipelinePolicy;
    }>;
  };
  /**
   * The credential built with `options`, whose getToken throws {@link EntraUnavailableError} for such a fault. The
   * result inherits from the credential (still an `instanceof` its class); only getToken is its own.
   */
  guard<T extends TokenCredential>(credential: T): T;
}

/**
 * The bounds ARM requests have (one retry, a long Retry-After answered at once, a request timeout), for the requests
 * an @azure/identity credential sends to Entra ID (docs/azure-facts.md#entra-throttling). Identity's IdentityClient is
 * a core-client ServiceClient built from the credential's options (default `retryOptions.maxRetries: 3`, overridden by
 * ours) and is MSAL's network client, so its pipeline carries the OpenID discovery and token requests. Without these,
 * a 429 with `Retry-After: 3600` holds the caller for an hour and a token endpoint that never answers holds it forever.
 * One per credential: the policy records the fault for that credential's guard.
 */
export function entraTokenBounds(timeoutMs: number): EntraTokenBounds {
  let seq = 0;
  let fault: EntraFault | undefined;
  /** Tries of each request so far (the retry policy sends the same request object again). */
  const tries = new WeakMap<object, number>();
  const policy: PipelinePolicy = {
    name: 'capz-entra-bounds',
    async sendRequest(request, next) {
      const attempt = (tries.get(request) ?? 0) + 1;
      tries.set(request, attempt);
      const timeout = !request.timeout;
      if (timeout) request.timeout = timeoutMs;
      let response: PipelineResponse;
      try {
        response = await next(request);
      } catch (e) {
        const aborted =
          timeout &&
          (e as { name?: string })?.name === 'AbortError' &&
          !request.abortSignal?.aborted;
        fault = aborted
          ? { kind: 'timeout', seq: ++seq, timeoutMs }
          : undefined;
        throw e;
      }
      if (response.status !== 429 && response.status !== 503) {
        fault = undefined;
        return response;
      }
      const wait = retryAfterSeconds(response.headers);
      fault = {
        kind: response.status === 429 ? 'throttled' : 'unavailable',
        seq: ++seq,
        ...(wait !== undefined ? { retryAfter: wait } : {}),
      };
      // Left to the SDK's retry policy only when it tries again at once or after a short wait: a first 429 or 503
      // with Retry-After up to MAX_RETRY_WAIT_SECONDS, or a first 503 without it (its exponential back-off). Anything
      // else is thrown here (not a RestError: the retry loop ends) rather than handed to MSAL, which would keep the
      // refusal in its own throttling cache (msal-common ThrottlingUtils) and report a ServerError with no status.
      const retried =
        attempt === 1 &&
        (wait !== undefined
          ? wait <= MAX_RETRY_WAIT_SECONDS
          : response.status === 503);
      if (!retried) throw new EntraUnavailableError(fault);
      return response;
    },
  };
  return {
    options: {
      retryOptions: { maxRetries: 1 },
      additionalPolicies: [{ position: 'perRetry', policy }],
    },
    guard: <T extends TokenCredential>(credential: T): T => {
      const getToken: TokenCredential['getToken'] = async (scopes, options) => {
        const before = seq;
        try {
          return await credential.getToken(scopes, options);
        } catch (e) {
          if (fault && fault.seq > before)
            throw new EntraUnavailableError(fault);
          throw e;
        }
      };
      return Object.assign(Object.create(credential) as T, { getToken });
    },
  };
}

/** ARM's own error (code and message) from the response body. */
function armError(e: RestErrorLike): { code?: string; message?: string } {
  const text =
    e.response?.bodyAsText ??
    (e.request ? errorBodies.get(e.request) : undefined);
  if (!text) return {};
  try {
    const body = JSON.parse(text) as {
      error?: { code?: unknown; message?: unknown };
    };
    return {
      ...(typeof body.error?.code === 'string'
        ? { code: body.error.code }
        : {}),
      ...(typeof body.error?.message === 'string'
        ? { message: body.error.message }
        : {}),
    };
  } catch {
    return {};
  }
}

/** The first line of a message: @azure/identity appends troubleshooting links and response dumps. */
const firstLine = (s: string) =>
  s
    .split('\n')
    .map(l => l.trim())
    .find(Boolean) ?? s;

/**
 * Turns what the Azure SDK threw into an AzureServiceError with a message a person can act on. `what` says what was
 * being done ("listing AKS clusters in subscription ..."). Errors of this module pass through unchanged.
 */
export function toAzureServiceError(
  e: unknown,
  what: string,
): AzureServiceError | AzureCredentialError | AzureRequestError {
  if (
    e instanceof AzureServiceError ||
    e instanceof AzureCredentialError ||
    e instanceof AzureRequestError
  )
    return e;
  if (e instanceof EntraUnavailableError) {
    const status = { throttled: 429, unavailable: 503, timeout: 0 }[e.kind];
    const words = {
      throttled: 'Entra ID is throttling token requests',
      unavailable: 'Entra ID is unavailable',
      timeout: 'Entra ID did not answer in time',
    }[e.kind];
    const answered = status
      ? `Entra ID answered ${status}`
      : 'Entra ID gave no answer';
    return new AzureServiceError(
      'Entra ID',
      `${words}; try again in ${e.retryAfterSeconds} s (${answered} while ${what})`,
      {
        code: status ? `HTTP ${status}` : 'Timeout',
        statusCode: 503,
        retryAfterSeconds: e.retryAfterSeconds,
      },
    );
  }
  if (e instanceof ThrottledResponse) {
    const code = armError({ response: e.response }).code;
    return throttled(e.response.status, code, e.retryAfter, what);
  }
  const err = (e ?? {}) as RestErrorLike & {
    errorResponse?: { error?: string; errorDescription?: string };
    errors?: unknown[];
  };
  const text = String(err.message ?? e);
  // Entra ID: @azure/identity's AuthenticationError (or an aggregate of them) carries `AADSTSnnnn: description`.
  const aadsts = /AADSTS(\d+):?\s*([^\n]*)/.exec(
    err.errorResponse?.errorDescription ?? text,
  );
  if (
    aadsts ||
    err.name === 'AuthenticationError' ||
    err.name === 'AggregateAuthenticationError' ||
    err.name === 'CredentialUnavailableError'
  ) {
    const code = aadsts ? `AADSTS${aadsts[1]}` : err.errorResponse?.error;
    const detail = aadsts
      ? `AADSTS${aadsts[1]}: ${aadsts[2].replace(/\s*Trace ID:.*$/, '').trim()}`
      : firstLine(text);
    const unavailable =
      err.errorResponse?.error === 'temporarily_unavailable' ||
      err.statusCode === 503;
    return new AzureServiceError(
      'Entra ID',
      `Entra ID refused the credential while ${what}: ${detail}`,
      {
        code,
        statusCode: unavailable ? 503 : 502,
        ...(unavailable
          ? { retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS }
          : {}),
      },
    );
  }
  if (typeof err.statusCode === 'number') {
    const body = armError(err);
    const message = body.message ?? firstLine(text);
    const code = err.code ?? body.code ?? `HTTP ${err.statusCode}`;
    if (err.statusCode === 429 || err.statusCode === 503) {
      const wait =
        retryAfterSeconds(err.response?.headers) ??
        (err.request ? errorRetryAfter.get(err.request) : undefined);
      return throttled(err.statusCode, err.code ?? body.code, wait, what);
    }
    if (code === 'SubscriptionNotFound')
      return new AzureRequestError(
        `The subscription is not one the credential can see (ARM answered SubscriptionNotFound while ${what}): ${message}`,
        { statusCode: 404, code, field: 'subscriptionId' },
      );
    if (code === 'InvalidSubscriptionId')
      return new AzureRequestError(
        `The subscription id is not valid (ARM answered InvalidSubscriptionId while ${what}): ${message}`,
        { statusCode: 400, code, field: 'subscriptionId' },
      );
    const hint =
      code === 'AuthorizationFailed'
        ? ". The credential's identity needs a role (at least Reader) on the subscription"
        : '';
    return new AzureServiceError(
      'ARM',
      `ARM answered ${code} while ${what}: ${message}${hint}`,
      { code },
    );
  }
  // No answer within the request's bound (requestTimeout): the SDK aborts it.
  if (err.name === 'AbortError')
    return new AzureServiceError(
      'ARM',
      `Azure did not answer in time; try again in ${DEFAULT_RETRY_AFTER_SECONDS} s (ARM gave no answer while ${what})`,
      {
        code: 'Timeout',
        statusCode: 503,
        retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
      },
    );
  // No HTTP answer: connection or TLS failure.
  const tls = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(
    err.code ?? '',
  );
  const code = err.code ? ` (${err.code})` : '';
  const hint = tls
    ? '. For a private endpoint, trust its CA with capz.azureDiscovery.caData'
    : '';
  return new AzureServiceError(
    'ARM',
    `Could not reach ARM while ${what}: ${firstLine(text)}${code}${hint}`,
    { code: err.code },
  );
}

/** A 429 or 503 of ARM as the user reads it: a 503 with when to try again. */
function throttled(
  status: number,
  code: string | undefined,
  wait: number | undefined,
  what: string,
): AzureServiceError {
  const seconds = Math.max(1, wait ?? DEFAULT_RETRY_AFTER_SECONDS);
  const answered = `ARM answered ${status}${code ? ` ${code}` : ''}`;
  return new AzureServiceError(
    'ARM',
    status === 429
      ? `Azure is throttling requests; try again in ${seconds} s (${answered} while ${what})`
      : `Azure is unavailable; try again in ${seconds} s (${answered} while ${what})`,
    {
      code: code ?? `HTTP ${status}`,
      statusCode: 503,
      retryAfterSeconds: seconds,
    },
  );
}

/** The seconds a 503 of this module says to wait before trying again (Azure throttling or unavailable), if any. */
export function retryAfterOf(error: unknown): number | undefined {
  const e = error as { statusCode?: unknown; retryAfterSeconds?: unknown };
  return e?.statusCode === 503 &&
    typeof e.retryAfterSeconds === 'number' &&
    Number.isFinite(e.retryAfterSeconds)
    ? Math.max(0, Math.ceil(e.retryAfterSeconds))
    : undefined;
}

/**
 * An error middleware for the routes that ask ARM: a 503 that says when to try again (`retryAfterSeconds`: ARM
 * throttling or unavailable, Entra ID unavailable) gets that as the answer's `Retry-After` header (RFC 9110 §10.2.3,
 * seconds), then goes on unchanged to the error handler that writes the body (Backstage's writes no header of its own).
 */
export function retryAfterHeader(): ErrorRequestHandler {
  return (error, _req, res, next) => {
    const wait = retryAfterOf(error);
    if (wait !== undefined && !res.headersSent)
      res.setHeader('Retry-After', String(wait));
    next(error);
  };
}
