/**
 * A simulated Microsoft Entra ID token service, enough for `@azure/identity`'s ClientSecretCredential (through MSAL)
 * to get tokens for the AKS server application, and for a real kube-apiserver with a JWT authenticator
 * (`--authentication-config`) to validate them, as an AKS cluster with AKS-managed Entra integration does.
 * Which fact of docs/azure-facts.md or public protocol each behaviour follows:
 *
 * - HTTPS on loopback with a generated CA: MSAL only accepts https authorities; clients pass `authorityHost: url`,
 *   `disableInstanceDiscovery: true` (docs/azure-facts.md#identity-credentials, identity's AuthorityValidationOptions)
 *   and trust `caPem`.
 * - OIDC discovery at `/{tenant}/v2.0/.well-known/openid-configuration`, where MSAL looks for a non-Microsoft
 *   authority (msal-common Authority.defaultOpenIdConfigurationEndpoint) and where the API server looks for the
 *   issuer `{url}/{tenant}/v2.0` (OIDC Discovery 1.0 section 4); it carries the four fields MSAL requires
 *   (authorization_endpoint, token_endpoint, issuer, jwks_uri: msal-common isOpenIdConfigResponse) and an issuer on
 *   the authority's host and port (msal-common Authority.validateIssuer).
 * - JWKS at `/{tenant}/discovery/v2.0/keys` (Entra's path), RS256 keys with `kid`.
 * - `POST /{tenant}/oauth2/v2.0/token`, grant `client_credentials` with `client_secret`, scope `<app id>/.default`
 *   (docs/azure-facts.md#entra-token-endpoint: the POST carries `scope=6dae42f8-…/.default`,
 *   `grant_type=client_credentials`); a `claims` parameter is accepted and ignored (CAE). Response `{token_type,
 *   expires_in, ext_expires_in, access_token}` (docs/azure-facts.md#aks-entra-token, kubelogin's fixture: `expires_in:
 *   3599`, the default lifetime here; settable, e.g. a few seconds in tests).
 * - Access tokens: RS256 JWTs with `aud` = the resource application id (the AKS server application for AKS),
 *   `iss`, `iat`, `nbf`, `exp`, `oid` (the service principal's object id, what AKS and our API-server config map
 *   to the user name), `sub`, `tid`, `azp`/`appid` (the client id), `ver: 2.0`, `idtyp: app` (Entra access-token
 *   claims, learn.microsoft.com/entra/identity-platform/access-token-claims-reference,
 *   docs/azure-facts.md#entra-token-endpoint).
 * - Errors as Entra answers them, `{error, error_description: "AADSTSnnnn: …", error_codes, timestamp, trace_id,
 *   correlation_id}`: wrong secret 401 `invalid_client` AADSTS7000215, unknown client 400 `unauthorized_client`
 *   AADSTS700016, unknown tenant 400 `invalid_request` AADSTS90002, unknown resource 400 `invalid_scope`
 *   AADSTS500011, other grants 400 `unsupported_grant_type` AADSTS70003 (*inference*: codes from Entra's public
 *   error-code reference, not docs/azure-facts.md), an outage 503 `temporarily_unavailable` (`setAvailable(false)`).
 * - Under its real name: reached through the proxy of src/proxy/server.ts with `Host: login.microsoftonline.com`,
 *   every URL it hands out (discovery endpoints, `iss`) is on `https://login.microsoftonline.com`, the host the
 *   client used, because MSAL Go (v1.6.0, ASO's pin) fetches `https://<authority host>/<tenant>/v2.0/.well-known/
 *   openid-configuration` for that trusted host and checks the issuer's host against the authority's
 *   (`apps/internal/oauth/resolvers.go` lines 133-156, `apps/internal/oauth/ops/authority/authority.go`
 *   `ValidateIssuerMatchesAuthority`, lines 111-152). `verify` accepts tokens issued under either name.
 * - AAD instance discovery, `GET /common/discovery/instance?api-version=1.1&authorization_endpoint=https://<host>/
 *   <tenant>/oauth2/v2.0/authorize`: MSAL Go (v1.6.0) asks it before every token request while discovery is enabled
 *   (azidentity leaves it on), for its token cache's alias list (`apps/internal/base/storage/storage.go` lines
 *   128-136), at the authority's host when that is trusted, else at login.microsoftonline.com (`authority.go`
 *   `AADInstanceDiscovery`, lines 575-613), where it also resolves an untrusted host's tenant endpoints
 *   (`resolvers.go` line 139; e.g. a client pointed at this service's loopback URL). Seen in the real-controllers
 *   lane: real ASO's first request, `GET /common/discovery/instance` on login.microsoftonline.com (were it to fail,
 *   MSAL's cache lookup would fail and azidentity would go to the token endpoint every time: azidentity v1.13.1
 *   `confidential_client.go` lines 104-107). Answer `{tenant_discovery_endpoint, api-version, metadata[{preferred_network,
 *   preferred_cache, aliases}]}` as MSAL Go's own fixture has it (`apps/internal/mock/mock.go`
 *   `GetInstanceDiscoveryBody`, v1.6.0), with the public cloud's alias group for login.microsoftonline.com; an
 *   authorization endpoint on any other host is 400 `invalid_instance` AADSTS50049 (*inference*: Entra's public
 *   error-code reference).
 * - ARM's audiences: azcore's public cloud asks for `https://management.core.windows.net//.default` (ARM audience
 *   `https://management.core.windows.net/` + `/.default`: `sdk/azcore@v1.21.0/arm/runtime/runtime.go` line 18,
 *   `arm/runtime/pipeline.go` line 32; ASO v2.18.0 uses that cloud when nothing overrides it:
 *   `v2/pkg/common/cloud/cloud.go` lines 13-34), the JS SDK `https://management.azure.com/.default`; the token's
 *   `aud` is the resource as asked (the scope without `/.default`, trailing slash kept), and a resource application
 *   matches its identifier with or without the trailing slash (the simulated ARM accepts both audiences:
 *   `ARM_AUDIENCES` of src/arm/server.ts). Not simulated: ARM accepts v1.0
 *   tokens (`iss` on sts.windows.net, *inference*); every token here is v2.0 with this service's issuer.
 * - `tokensIssued` counts every token issued, so tests can prove a client refreshed.
 * - `verify(token, audience)` checks a token as a resource server would (signature with this service's key, issuer,
 *   lifetime, audience): the simulated ARM endpoint uses it for tokens issued for `https://management.azure.com`.
 * Not simulated: certificate or federated (workload identity) client assertions, managed identity endpoints,
 * user flows, token caching rules on the server side.
 */
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureLoopbackTls } from '../runtime/loopbackTls.ts';

/** The first-party "Azure Kubernetes Service AAD Server" application (docs/azure-facts.md#aks-entra-token). */
export const AKS_SERVER_APPLICATION_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';

/** Azure Resource Manager as a resource: the ARM SDK asks for `https://management.azure.com/.default` (docs/azure-facts.md#entra-token-endpoint, docs/azure-facts.md#arm-sdk). */
export const ARM_RESOURCE = 'https://management.azure.com';

/** Entra ID's public-cloud host, which clients reach through the simulator's proxy (src/proxy/server.ts). */
export const ENTRA_HOST = 'login.microsoftonline.com';

/**
 * The public cloud's alias group of the instance discovery answer (Entra's `metadata[0]` for login.microsoftonline.com,
 * as recorded in the Azure SDKs' test recordings; the same four names are in MSAL Go's `aadTrustedHostList`,
 * `authority.go` lines 53-64, v1.6.0).
 */
const PUBLIC_CLOUD_ALIASES = [
  'login.microsoftonline.com',
  'login.windows.net',
  'login.microsoft.com',
  'sts.windows.net',
];

/** The claims of a token this service issued and that is still valid (see `EntraSim.verify`). */
export interface VerifiedToken {
  tenantId: string;
  clientId: string;
  objectId: string;
  audience: string;
  expiresOn: number;
}

export interface ServicePrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** The object id put in `oid` (default: a new UUID). */
  objectId?: string;
}

export interface EntraSimOptions {
  /** Where the generated CA and serving certificate live (reused if present). */
  stateDir: string;
  /** Lifetime of issued tokens (default 3599 s); may be changed later through `tokenLifetimeSeconds`. */
  tokenLifetimeSeconds?: number;
  /** Resource applications tokens may be issued for (default: the AKS server application). */
  applications?: string[];
  servicePrincipals?: ServicePrincipal[];
  /** default 0 = a free port on 127.0.0.1 */
  port?: number;
}

export interface IssuedToken {
  tenantId: string;
  clientId: string;
  objectId: string;
  audience: string;
  expiresOn: number;
}

export interface EntraSim {
  /** `https://127.0.0.1:<port>`: the authority host for @azure/identity. */
  url: string;
  /** The CA that signed the serving certificate (for the client and for the API server's JWT authenticator). */
  caPem: string;
  /**
   * The issuer of a tenant's tokens, as the API server's JWT authenticator must be configured with: on the loopback
   * URL, or on `https://<host>` for a token asked for under a real name (`ENTRA_HOST`, through the proxy).
   */
  issuer(tenantId: string, host?: string): string;
  tokenLifetimeSeconds: number;
  readonly tokensIssued: number;
  /** Every token issued, oldest first (claims only, never the token itself). */
  readonly issued: IssuedToken[];
  /** Registers (or replaces) a service principal; returns its object id. */
  addServicePrincipal(sp: ServicePrincipal): string;
  /** Rotates a client's secret: the old one is rejected from now on. */
  setSecret(clientId: string, clientSecret: string): void;
  /** While false, the token endpoint answers 503 (an Entra outage); discovery and keys stay up. */
  setAvailable(available: boolean): void;
  /**
   * What a resource server does with a bearer token: checks the RS256 signature against this service's key, the
   * issuer, `nbf`/`exp` and, if given, the audience (a trailing `/` is ignored, as `https://management.azure.com/`
   * and `https://management.azure.com` name the same resource). Undefined for anything else.
   */
  verify(token: string, audience?: string): VerifiedToken | undefined;
  close(): Promise<void>;
}

const b64url = (data: string | Buffer) =>
  Buffer.from(data).toString('base64url');

function entraError(
  res: ServerResponse,
  status: number,
  error: string,
  code: number,
  description: string,
): void {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(
    JSON.stringify({
      error,
      error_description: `AADSTS${code}: ${description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
      error_codes: [code],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
    }),
  );
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', d => (text += d));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export async function startEntraSim(opts: EntraSimOptions): Promise<EntraSim> {
  const tls = ensureLoopbackTls(opts.stateDir, 'entra');
  // One signing key per run: clients fetch the JWKS again when they meet an unknown kid.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
  });
  const kid = b64url(randomUUID()).slice(0, 22);
  const jwk = {
    ...publicKey.export({ format: 'jwk' }),
    kid,
    use: 'sig',
    alg: 'RS256',
    kty: 'RSA',
  };

  const applications = new Set(
    opts.applications ?? [AKS_SERVER_APPLICATION_ID],
  );
  const principals = new Map<string, Required<ServicePrincipal>>(); // by client id
  const tenants = () =>
    new Set([...principals.values()].map(p => p.tenantId.toLowerCase()));
  const issued: IssuedToken[] = [];
  let available = true;
  let url = '';

  // The base URL a client used: the real name when it came through the proxy, else the loopback URL.
  const baseFor = (host: string | undefined) => {
    const h = (host ?? '').toLowerCase().replace(/:443$/, '');
    return h === ENTRA_HOST ? `https://${h}` : url;
  };
  const issuer = (tenantId: string, host?: string) =>
    `${baseFor(host)}/${tenantId}/v2.0`;
  const trimSlash = (s: string) => s.replace(/\/+$/, '');
  const knownApplication = (audience: string) =>
    audience !== '' &&
    [...applications].some(a => trimSlash(a) === trimSlash(audience));

  const addServicePrincipal = (sp: ServicePrincipal): string => {
    const objectId = sp.objectId ?? randomUUID();
    principals.set(sp.clientId, { ...sp, objectId });
    return objectId;
  };
  for (const sp of opts.servicePrincipals ?? []) addServicePrincipal(sp);

  const signJwt = (claims: Record<string, unknown>) => {
    const input = `${b64url(
      JSON.stringify({ typ: 'JWT', alg: 'RS256', kid }),
    )}.${b64url(JSON.stringify(claims))}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString(
      'base64url',
    )}`;
  };

  const sim: EntraSim = {
    url: '',
    caPem: tls.caPem,
    issuer,
    tokenLifetimeSeconds: opts.tokenLifetimeSeconds ?? 3599,
    get tokensIssued() {
      return issued.length;
    },
    issued,
    addServicePrincipal,
    setSecret(clientId, clientSecret) {
      const sp = principals.get(clientId);
      if (!sp)
        throw new Error(`no service principal with client id ${clientId}`);
      sp.clientSecret = clientSecret;
    },
    setAvailable(value) {
      available = value;
    },
    verify(token, audience) {
      const parts = token.split('.');
      if (parts.length !== 3) return undefined;
      const [h, p, sig] = parts;
      try {
        const header = JSON.parse(
          Buffer.from(h, 'base64url').toString('utf8'),
        ) as { alg?: string; kid?: string };
        if (header.alg !== 'RS256' || header.kid !== kid) return undefined;
        if (
          !verify(
            'sha256',
            Buffer.from(`${h}.${p}`),
            publicKey,
            Buffer.from(sig, 'base64url'),
          )
        )
          return undefined;
        const c = JSON.parse(
          Buffer.from(p, 'base64url').toString('utf8'),
        ) as Record<string, unknown>;
        const now = Math.floor(Date.now() / 1000);
        if (
          typeof c.exp !== 'number' ||
          typeof c.nbf !== 'number' ||
          now >= c.exp ||
          now < c.nbf
        )
          return undefined;
        const tid = String(c.tid);
        if (c.iss !== issuer(tid) && c.iss !== issuer(tid, ENTRA_HOST))
          return undefined;
        if (
          audience !== undefined &&
          trimSlash(String(c.aud)) !== trimSlash(audience)
        )
          return undefined;
        return {
          tenantId: String(c.tid),
          clientId: String(c.azp),
          objectId: String(c.oid),
          audience: String(c.aud),
          expiresOn: c.exp * 1000,
        };
      } catch {
        return undefined;
      }
    },
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  async function token(
    tenant: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    if (!available) {
      entraError(
        res,
        503,
        'temporarily_unavailable',
        50196,
        'The server is temporarily unavailable.',
      );
      return;
    }
    if (!tenants().has(tenant.toLowerCase())) {
      entraError(
        res,
        400,
        'invalid_request',
        90002,
        `Tenant '${tenant}' not found.`,
      );
      return;
    }
    if (form.get('grant_type') !== 'client_credentials') {
      entraError(
        res,
        400,
        'unsupported_grant_type',
        70003,
        'The app requested an unsupported grant type.',
      );
      return;
    }
    const clientId = form.get('client_id') ?? '';
    const sp = principals.get(clientId);
    if (!sp || sp.tenantId.toLowerCase() !== tenant.toLowerCase()) {
      entraError(
        res,
        400,
        'unauthorized_client',
        700016,
        `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
      );
      return;
    }
    if (form.get('client_secret') !== sp.clientSecret) {
      entraError(
        res,
        401,
        'invalid_client',
        7000215,
        `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
      );
      return;
    }
    // MSAL adds openid/profile/offline_access to every request; the resource is the one `/.default` scope.
    const resourceScope = (form.get('scope') ?? '')
      .split(' ')
      .find(s => s.endsWith('/.default'));
    const audience = resourceScope?.slice(0, -'/.default'.length) ?? '';
    if (!knownApplication(audience)) {
      entraError(
        res,
        400,
        'invalid_scope',
        500011,
        `The resource principal named ${
          audience || '(none)'
        } was not found in the tenant named ${tenant}.`,
      );
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const lifetime = sim.tokenLifetimeSeconds;
    const accessToken = signJwt({
      aud: audience,
      iss: issuer(sp.tenantId, req.headers.host),
      iat: now,
      nbf: now,
      exp: now + lifetime,
      azp: clientId,
      appid: clientId,
      idtyp: 'app',
      oid: sp.objectId,
      sub: sp.objectId,
      tid: sp.tenantId,
      ver: '2.0',
      uti: b64url(randomUUID()).slice(0, 22),
    });
    issued.push({
      tenantId: sp.tenantId,
      clientId,
      objectId: sp.objectId,
      audience,
      expiresOn: (now + lifetime) * 1000,
    });
    json(res, {
      token_type: 'Bearer',
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: accessToken,
    });
  }

  /** `/common/discovery/instance`: see the header comment (MSAL Go `AADInstanceDiscovery`). */
  function instanceDiscovery(query: URLSearchParams, res: ServerResponse) {
    let endpoint: URL | undefined;
    try {
      endpoint = new URL(query.get('authorization_endpoint') ?? '');
    } catch {
      endpoint = undefined;
    }
    const host = endpoint?.host.toLowerCase() ?? '';
    const tenant = endpoint?.pathname.split('/').filter(Boolean)[0];
    const own = new URL(url).host;
    if (
      !endpoint ||
      endpoint.protocol !== 'https:' ||
      !tenant ||
      (host !== own && !PUBLIC_CLOUD_ALIASES.includes(host))
    ) {
      entraError(
        res,
        400,
        'invalid_instance',
        50049,
        'Unknown or invalid instance.',
      );
      return;
    }
    json(res, {
      tenant_discovery_endpoint: `https://${host}/${tenant}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata:
        host === own
          ? [{ preferred_network: own, preferred_cache: own, aliases: [own] }]
          : [
              {
                preferred_network: ENTRA_HOST,
                preferred_cache: 'login.windows.net',
                aliases: PUBLIC_CLOUD_ALIASES,
              },
            ],
    });
  }

  const server = createServer(
    { cert: tls.certPem, key: tls.keyPem },
    (req, res) => {
      const reqUrl = new URL(req.url ?? '/', 'https://localhost');
      const path = reqUrl.pathname;
      const [tenant, ...rest] = path.split('/').filter(Boolean);
      const route = rest.join('/');
      const handle = async () => {
        if (
          req.method === 'GET' &&
          tenant === 'common' &&
          route === 'discovery/instance'
        ) {
          instanceDiscovery(reqUrl.searchParams, res);
        } else if (
          req.method === 'GET' &&
          route === 'v2.0/.well-known/openid-configuration'
        ) {
          const base = `${baseFor(req.headers.host)}/${tenant}`;
          json(res, {
            issuer: issuer(tenant, req.headers.host),
            authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
            token_endpoint: `${base}/oauth2/v2.0/token`,
            jwks_uri: `${base}/discovery/v2.0/keys`,
            end_session_endpoint: `${base}/oauth2/v2.0/logout`,
            response_types_supported: [
              'code',
              'id_token',
              'code id_token',
              'id_token token',
            ],
            subject_types_supported: ['pairwise'],
            id_token_signing_alg_values_supported: ['RS256'],
            token_endpoint_auth_methods_supported: [
              'client_secret_post',
              'private_key_jwt',
              'client_secret_basic',
            ],
            scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
            claims_supported: [
              'sub',
              'iss',
              'aud',
              'exp',
              'iat',
              'nbf',
              'oid',
              'tid',
              'azp',
              'ver',
            ],
            tenant_region_scope: null,
          });
        } else if (req.method === 'GET' && route === 'discovery/v2.0/keys') {
          json(res, { keys: [jwk] });
        } else if (req.method === 'POST' && route === 'oauth2/v2.0/token') {
          await token(tenant ?? '', req, res);
        } else {
          entraError(
            res,
            404,
            'invalid_request',
            900561,
            `The endpoint ${req.method} ${path} is not simulated.`,
          );
        }
      };
      handle().catch(e => {
        if (!res.headersSent)
          entraError(res, 500, 'server_error', 50000, (e as Error).message);
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sim.url = url;
  return sim;
}
