/**
 * Errors of AKS discovery. Each carries `statusCode`, which Backstage's error middleware uses as the HTTP status
 * (MiddlewareFactory.error reads `statusCode` before the error name), so the router needs no mapping of its own:
 * - AzureCredentialError: the chosen ASO credential Secret is missing (404) or not usable by this backend (400).
 * - AzureServiceError: Entra ID or ARM refused or failed (502; 503 while Entra ID says it is unavailable). `code`
 *   is Entra's `AADSTSnnnn` or ARM's error code (`AuthorizationFailed`, `SubscriptionNotFound`, ...).
 * Messages never contain secret values.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';

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

  constructor(
    service: 'Entra ID' | 'ARM',
    message: string,
    opts: { code?: string; statusCode?: 502 | 503 } = {},
  ) {
    super(message);
    this.name = 'AzureServiceError';
    this.service = service;
    this.code = opts.code;
    this.statusCode = opts.statusCode ?? 502;
  }
}

interface RestErrorLike {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  request?: object;
  response?: { bodyAsText?: string | null };
}

/**
 * ARM's error bodies by request: paged operations replace ARM's message with "Pagination failed with unexpected
 * statusCode 403" and keep only the parsed code, so this per-call policy remembers the body of every error response.
 */
const errorBodies = new WeakMap<object, string>();
export const keepErrorBodies: PipelinePolicy = {
  name: 'capz-keep-arm-error-bodies',
  async sendRequest(request, next) {
    const response = await next(request);
    if (response.status >= 400 && response.bodyAsText)
      errorBodies.set(request, response.bodyAsText);
    return response;
  },
};

/** ARM's own message from the response body. */
function armMessage(e: RestErrorLike): string | undefined {
  const text =
    e.response?.bodyAsText ??
    (e.request ? errorBodies.get(e.request) : undefined);
  if (!text) return undefined;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string'
      ? body.error.message
      : undefined;
  } catch {
    return undefined;
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
): AzureServiceError | AzureCredentialError {
  if (e instanceof AzureServiceError || e instanceof AzureCredentialError)
    return e;
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
      },
    );
  }
  if (typeof err.statusCode === 'number') {
    const message = armMessage(err) ?? firstLine(text);
    const code = err.code ?? `HTTP ${err.statusCode}`;
    return new AzureServiceError(
      'ARM',
      `ARM answered ${code} while ${what}: ${message}`,
      { code },
    );
  }
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
