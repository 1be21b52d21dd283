/**
 * One of the plugin's own routes called on behalf of an action's caller (the way Backstage's catalog actions call the
 * catalog): the same validation, permission decision, audit and messages as a request from the pages.
 */
import type {
  AuthService,
  BackstageCredentials,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import { ResponseError } from '@backstage/errors';

/** POSTs `body` to the capz route `path` with a token on behalf of `credentials`; its error as the route answered it. */
export function postAsCaller(
  o: { auth: AuthService; discovery: DiscoveryService },
  credentials: BackstageCredentials,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  return callAsCaller(o, credentials, 'POST', path, body);
}

/** GETs the capz route `path` on behalf of `credentials`; its error as the route answered it. */
export function getAsCaller(
  o: { auth: AuthService; discovery: DiscoveryService },
  credentials: BackstageCredentials,
  path: string,
): Promise<Record<string, unknown>> {
  return callAsCaller(o, credentials, 'GET', path);
}

async function callAsCaller(
  o: { auth: AuthService; discovery: DiscoveryService },
  credentials: BackstageCredentials,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const { token } = await o.auth.getPluginRequestToken({
    onBehalfOf: credentials,
    targetPluginId: 'capz',
  });
  const res = await fetch(`${await o.discovery.getBaseUrl('capz')}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw await ResponseError.fromResponse(res);
  return (await res.json()) as Record<string, unknown>;
}
