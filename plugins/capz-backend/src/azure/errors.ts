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
