/**
 * The ARM clients this plugin makes: `@azure/arm-containerservice` with the credential an ASO Secret describes
 * (docs/azure-facts.md#arm-sdk), and plain GETs through the same client's pipeline for the Microsoft.Resources calls the
 * SDK package does not cover.
 */
import { ContainerServiceClient } from '@azure/arm-containerservice';
import {
  createDefaultHttpClient,
  createPipelineRequest,
  RestError,
  type HttpClient,
} from '@azure/core-rest-pipeline';
import type { AzureDiscoverySettings } from '../config';
import type { SecretCredential } from '../credentials';
import {
  keepErrorBodies,
  ARM_REQUEST_TIMEOUT_MS,
  limitRetryAfter,
  requestTimeout,
} from '../errors';

/** The API version of the ASO CRDs the plugin writes (v1api20240901) and of the simulated ARM (docs/azure-facts.md#arm-sdk). */
export const AKS_API_VERSION = '2024-09-01';

/**
 * The Microsoft.Resources api-version of the resource group GET: a long-GA version whose body has `location`
 * (docs/azure-facts.md#arm-resource-groups shape; ASO's own version is 2020-06-01). Which one is an inference: every GA
 * version has this body.
 */
export const RESOURCES_API_VERSION = '2021-04-01';

/** The Microsoft.Resources api-version of the subscription's locations list (ARM's `Subscriptions - List Locations`). */
export const LOCATIONS_API_VERSION = '2022-12-01';

/** The Microsoft.Resources api-version of the subscriptions list (ARM's `Subscriptions - List`). */
export const SUBSCRIPTIONS_API_VERSION = '2022-12-01';

/** One HTTP client for the plain GETs; it caches an https.Agent per pipeline's TLS settings. */
let sharedHttpClient: HttpClient | undefined;
const httpClient = () => (sharedHttpClient ??= createDefaultHttpClient());

/** `<endpoint>/<path>` with the endpoint's trailing slashes dropped. */
export function armUrl(settings: AzureDiscoverySettings, path: string): string {
  return `${settings.resourceManagerEndpoint.replace(/\/+$/, '')}${path}`;
}

/**
 * A GET through an ARM client's pipeline (its credential, token scope, trusted CAs, retry and error-body policies): the
 * status and the parsed body (undefined when empty or not JSON).
 */
export async function armGetAnswer<T>(
  client: ContainerServiceClient,
  url: string,
): Promise<{
  status: number;
  body: (T & { error?: { code?: unknown; message?: unknown } }) | undefined;
  toError: () => RestError;
}> {
  const request = createPipelineRequest({ url, method: 'GET' });
  const response = await client.pipeline.sendRequest(httpClient(), request);
  let body: (T & { error?: { code?: unknown; message?: unknown } }) | undefined;
  try {
    body = response.bodyAsText ? JSON.parse(response.bodyAsText) : undefined;
  } catch {
    body = undefined;
  }
  // An error answer as the SDK would throw it: RestError with ARM's code, status, request and response.
  const toError = () =>
    new RestError(
      typeof body?.error?.message === 'string'
        ? body.error.message
        : `HTTP ${response.status}`,
      {
        code:
          typeof body?.error?.code === 'string' ? body.error.code : undefined,
        statusCode: response.status,
        request,
        response,
      },
    );
  return { status: response.status, body, toError };
}

/** A GET through the client's pipeline: the parsed body; an error answer is thrown as the SDK would. */
export async function armGet<T>(
  client: ContainerServiceClient,
  url: string,
): Promise<T | undefined> {
  const answer = await armGetAnswer<T>(client, url);
  if (answer.status >= 400) throw answer.toError();
  return answer.body;
}

export function createArmClient(
  c: SecretCredential,
  subscriptionId: string,
  s: AzureDiscoverySettings,
): ContainerServiceClient {
  return new ContainerServiceClient(c.credential, subscriptionId, {
    endpoint: s.resourceManagerEndpoint,
    apiVersion: AKS_API_VERSION,
    credentials: { scopes: [`${s.resourceManagerAudience}/.default`] },
    // Per client, verification on: the trusted CAs for a private endpoint or the simulator, nothing process-wide.
    ...(s.caData ? { tlsOptions: { ca: s.caData } } : {}),
    // A discovery request is interactive: fail within seconds rather than retry for a minute. One retry, and a 429 or
    // 503 is waited for only when ARM's Retry-After is at most MAX_RETRY_WAIT_SECONDS (docs/azure-facts.md#arm-throttling).
    retryOptions: { maxRetries: 1 },
    additionalPolicies: [
      { position: 'perCall', policy: keepErrorBodies },
      { position: 'perRetry', policy: limitRetryAfter },
      {
        position: 'perRetry',
        policy: requestTimeout(s.requestTimeoutMs ?? ARM_REQUEST_TIMEOUT_MS),
      },
    ],
  });
}
