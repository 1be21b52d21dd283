/**
 * The simulated Entra ID token service on its own (no management cluster needed): discovery, keys, tokens whose
 * signature and claims check out against the published keys, and Entra's errors. The backend's
 * azureAuth.integration.test.ts drives it with the real @azure/identity and a real kube-apiserver.
 */
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  ENTRA_HOST,
  startEntraSim,
  type EntraSim,
} from '../src/entra/server.ts';

/** ARM's two identifiers: the JS SDK's and azcore Go's public-cloud audience (sdk/azcore@v1.21.0/arm/runtime/runtime.go line 18). */
const ARM_AUDIENCES = [ARM_RESOURCE, 'https://management.core.windows.net/'];
const TENANT = '72f988bf-0000-4000-8000-000000000001';
const CLIENT = '3b1f0a2c-0000-4000-8000-000000000002';
let sim: EntraSim;
let stateDir: string;
let objectId: string;

function call(
  path: string,
  form?: Record<string, string>,
  host?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = form ? new URLSearchParams(form).toString() : undefined;
    const req = request(
      `${sim.url}${path}`,
      {
        method: form ? 'POST' : 'GET',
        ca: sim.caPem,
        agent: false,
        // A Host of a real name, as the proxy forwards it; the certificate still names localhost.
        servername: 'localhost',
        headers: {
          ...(payload
            ? { 'Content-Type': 'application/x-www-form-urlencoded' }
            : {}),
          ...(host ? { Host: host } : {}),
        },
      },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', d => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const tokenRequest = (
  secret: string,
  scope = `${AKS_SERVER_APPLICATION_ID}/.default`,
  host?: string,
) =>
  call(
    `/${TENANT}/oauth2/v2.0/token`,
    {
      grant_type: 'client_credentials',
      client_id: CLIENT,
      client_secret: secret,
      scope: `${scope} openid profile offline_access`,
    },
    host,
  );

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

before(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'capz-entra-'));
  sim = await startEntraSim({
    stateDir,
    tokenLifetimeSeconds: 120,
    applications: [AKS_SERVER_APPLICATION_ID, ...ARM_AUDIENCES],
  });
  objectId = sim.addServicePrincipal({
    tenantId: TENANT,
    clientId: CLIENT,
    clientSecret: 'right',
  });
});
after(async () => {
  await sim.close();
  rmSync(stateDir, { recursive: true, force: true });
});

test('discovery names the issuer, token endpoint and keys on the authority host', async () => {
  const res = await call(`/${TENANT}/v2.0/.well-known/openid-configuration`);
  assert.equal(res.status, 200);
  assert.equal(res.body.issuer, `${sim.url}/${TENANT}/v2.0`);
  assert.equal(res.body.issuer, sim.issuer(TENANT));
  assert.equal(
    res.body.token_endpoint,
    `${sim.url}/${TENANT}/oauth2/v2.0/token`,
  );
  for (const field of ['authorization_endpoint', 'jwks_uri'])
    assert.ok(res.body[field], field);
});

test('a client-credentials token is an RS256 JWT for the AKS server application, signed by a published key', async () => {
  const before = sim.tokensIssued;
  const res = await tokenRequest('right');
  assert.equal(res.status, 200);
  assert.equal(res.body.token_type, 'Bearer');
  assert.equal(res.body.expires_in, 120);
  const [h, p, s] = (res.body.access_token as string).split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  assert.equal(header.alg, 'RS256');

  const keys = (await call(`/${TENANT}/discovery/v2.0/keys`)).body
    .keys as any[];
  const jwk = keys.find(k => k.kid === header.kid);
  assert.ok(jwk, 'the token names a published key');
  assert.ok(
    verify(
      'sha256',
      Buffer.from(`${h}.${p}`),
      createPublicKey({ key: jwk, format: 'jwk' }),
      Buffer.from(s, 'base64url'),
    ),
  );
  assert.ok(
    !verify(
      'sha256',
      Buffer.from(`${h}.${p}x`),
      createPublicKey({ key: jwk, format: 'jwk' }),
      Buffer.from(s, 'base64url'),
    ),
  );

  assert.equal(claims.aud, AKS_SERVER_APPLICATION_ID);
  assert.equal(claims.iss, sim.issuer(TENANT));
  assert.equal(claims.tid, TENANT);
  assert.equal(claims.oid, objectId);
  assert.equal(claims.azp, CLIENT);
  assert.equal(claims.exp - claims.iat, 120);
  assert.equal(sim.tokensIssued, before + 1);
  assert.deepEqual(sim.issued.at(-1), {
    tenantId: TENANT,
    clientId: CLIENT,
    objectId,
    audience: AKS_SERVER_APPLICATION_ID,
    expiresOn: claims.exp * 1000,
  });
});

test('a wrong or rotated secret is refused as Entra does, and issues nothing', async () => {
  const before = sim.tokensIssued;
  const wrong = await tokenRequest('wrong');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.error, 'invalid_client');
  assert.match(
    wrong.body.error_description,
    /^AADSTS7000215: Invalid client secret provided/,
  );
  assert.deepEqual(wrong.body.error_codes, [7000215]);

  sim.setSecret(CLIENT, 'rotated');
  assert.equal((await tokenRequest('right')).status, 401);
  assert.equal((await tokenRequest('rotated')).status, 200);
  sim.setSecret(CLIENT, 'right');
  assert.equal(sim.tokensIssued, before + 1);
});

test('unknown resources, tenants, grants and an outage are refused with their codes', async () => {
  const scope = await tokenRequest('right', 'api://unknown');
  assert.equal(scope.status, 400);
  assert.equal(scope.body.error, 'invalid_scope');
  const tenant = await call(
    '/00000000-0000-0000-0000-000000000000/oauth2/v2.0/token',
    { grant_type: 'client_credentials' },
  );
  assert.equal(tenant.status, 400);
  assert.match(tenant.body.error_description, /^AADSTS90002/);
  const grant = await call(`/${TENANT}/oauth2/v2.0/token`, {
    grant_type: 'password',
    client_id: CLIENT,
  });
  assert.equal(grant.body.error, 'unsupported_grant_type');
  sim.setAvailable(false);
  try {
    assert.equal((await tokenRequest('right')).status, 503);
  } finally {
    sim.setAvailable(true);
  }
  assert.equal((await tokenRequest('right')).status, 200);
});

test('verify accepts only its own unexpired tokens, for the audience asked', async () => {
  const token = (await tokenRequest('right')).body.access_token as string;
  const claims = sim.verify(token, AKS_SERVER_APPLICATION_ID);
  assert.deepEqual(claims && { ...claims, expiresOn: undefined }, {
    tenantId: TENANT,
    clientId: CLIENT,
    objectId,
    audience: AKS_SERVER_APPLICATION_ID,
    expiresOn: undefined,
  });
  assert.ok(sim.verify(token), 'any audience when none is asked');
  assert.equal(
    sim.verify(token, 'https://management.azure.com'),
    undefined,
    'another audience',
  );
  const [h, p, s] = token.split('.');
  const tampered = Buffer.from(
    JSON.stringify({
      ...JSON.parse(Buffer.from(p, 'base64url').toString()),
      oid: 'someone-else',
    }),
  ).toString('base64url');
  assert.equal(
    sim.verify(`${h}.${tampered}.${s}`),
    undefined,
    'a changed payload',
  );
  assert.equal(sim.verify('not.a.jwt'), undefined);
  const lifetime = sim.tokenLifetimeSeconds;
  sim.tokenLifetimeSeconds = 0; // expires the second it is issued
  try {
    const expired = (await tokenRequest('right')).body.access_token as string;
    assert.equal(
      sim.verify(expired, AKS_SERVER_APPLICATION_ID),
      undefined,
      'an expired token',
    );
  } finally {
    sim.tokenLifetimeSeconds = lifetime;
  }
});

test('under its real name (Host login.microsoftonline.com), discovery and issuer name that host', async () => {
  const res = await call(
    `/${TENANT}/v2.0/.well-known/openid-configuration`,
    undefined,
    ENTRA_HOST,
  );
  assert.equal(res.status, 200);
  const base = `https://${ENTRA_HOST}/${TENANT}`;
  assert.equal(res.body.issuer, `${base}/v2.0`);
  assert.equal(res.body.issuer, sim.issuer(TENANT, ENTRA_HOST));
  assert.equal(res.body.token_endpoint, `${base}/oauth2/v2.0/token`);
  assert.equal(
    res.body.authorization_endpoint,
    `${base}/oauth2/v2.0/authorize`,
  );
  assert.equal(res.body.jwks_uri, `${base}/discovery/v2.0/keys`);
  // The port of the Host does not matter: the proxy forwards `login.microsoftonline.com` or `...:443`.
  const withPort = await call(
    `/${TENANT}/v2.0/.well-known/openid-configuration`,
    undefined,
    `${ENTRA_HOST}:443`,
  );
  assert.equal(withPort.body.issuer, `${base}/v2.0`);
});

test("instance discovery answers MSAL Go's request for the public cloud and for its own host, and refuses others", async () => {
  const discover = (authority: string) =>
    call(
      `/common/discovery/instance?api-version=1.1&authorization_endpoint=${encodeURIComponent(
        `${authority}/${TENANT}/oauth2/v2.0/authorize`,
      )}`,
      undefined,
      ENTRA_HOST,
    );
  const pub = await discover(`https://${ENTRA_HOST}`);
  assert.equal(pub.status, 200);
  assert.equal(
    pub.body.tenant_discovery_endpoint,
    `https://${ENTRA_HOST}/${TENANT}/v2.0/.well-known/openid-configuration`,
  );
  assert.equal(pub.body['api-version'], '1.1');
  assert.deepEqual(pub.body.metadata[0].aliases, [
    'login.microsoftonline.com',
    'login.windows.net',
    'login.microsoft.com',
    'sts.windows.net',
  ]);

  // A client whose authority is this service's loopback URL: tenant discovery there, this host its only alias.
  const own = await discover(sim.url);
  assert.equal(own.status, 200);
  assert.equal(
    own.body.tenant_discovery_endpoint,
    `${sim.url}/${TENANT}/v2.0/.well-known/openid-configuration`,
  );
  assert.deepEqual(own.body.metadata[0].aliases, [new URL(sim.url).host]);

  const other = await discover('https://login.example.com');
  assert.equal(other.status, 400);
  assert.equal(other.body.error, 'invalid_instance');
  assert.deepEqual(other.body.error_codes, [50049]);
  const missing = await call('/common/discovery/instance?api-version=1.1');
  assert.equal(missing.status, 400);
});

test("an ARM token as azcore Go asks for it (management.core.windows.net//.default) has Entra's aud and the host's issuer", async () => {
  const res = await tokenRequest(
    'right',
    'https://management.core.windows.net//.default',
    ENTRA_HOST,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const claims = claimsOf(res.body.access_token);
  assert.equal(claims.aud, 'https://management.core.windows.net/');
  assert.equal(claims.iss, `https://${ENTRA_HOST}/${TENANT}/v2.0`);
  assert.equal(sim.issued.at(-1)?.audience, claims.aud);
  const verified = sim.verify(
    res.body.access_token,
    'https://management.core.windows.net',
  );
  assert.equal(verified?.clientId, CLIENT, 'verified under the real issuer');
  assert.equal(
    sim.verify(res.body.access_token, 'https://management.azure.com'),
    undefined,
    'not for the other ARM identifier: callers check the ones they accept',
  );

  // The JS SDK's form, with the trailing slash of the Go form, on the loopback URL.
  const js = await tokenRequest(
    'right',
    'https://management.azure.com//.default',
  );
  assert.equal(js.status, 200, JSON.stringify(js.body));
  assert.equal(
    claimsOf(js.body.access_token).aud,
    'https://management.azure.com/',
  );
  assert.equal(claimsOf(js.body.access_token).iss, sim.issuer(TENANT));
});
