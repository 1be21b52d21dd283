/**
 * The simulator's HTTPS proxy on its own (no management cluster): a client that speaks CONNECT, as Go's transport
 * does for `HTTPS_PROXY`, reaches the simulated Entra ID under login.microsoftonline.com with the proxy's CA, the
 * request arrives with its Host unchanged, and every other host is refused and recorded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from 'node:tls';
import {
  ARM_RESOURCE,
  startEntraSim,
  type EntraSim,
} from '../src/entra/server.ts';
import {
  ARM_HOST,
  ENTRA_HOST,
  startSimProxy,
  type SimProxy,
} from '../src/proxy/server.ts';

/** ARM's two identifiers: the JS SDK's and azcore Go's public-cloud audience (sdk/azcore@v1.21.0/arm/runtime/runtime.go line 18). */
const ARM_AUDIENCES = [ARM_RESOURCE, 'https://management.core.windows.net/'];
const TENANT = '72f988bf-0000-4000-8000-0000000000a1';
const CLIENT = '3b1f0a2c-0000-4000-8000-0000000000a2';
let stateDir: string;
let entra: EntraSim;
let proxy: SimProxy;
const logged: string[] = [];

/** CONNECT through the proxy; resolves with the CONNECT status and, on 200, the tunnel's socket. */
function tunnel(target: string) {
  return new Promise<{ status: number; socket: import('node:net').Socket }>(
    (resolve, reject) => {
      const u = new URL(proxy.url);
      const req = httpRequest({
        host: u.hostname,
        port: u.port,
        method: 'CONNECT',
        path: target,
        headers: { Host: target },
      });
      req.on('connect', (res, socket) =>
        resolve({ status: res.statusCode ?? 0, socket }),
      );
      req.on('error', reject);
      req.end();
    },
  );
}

/** An HTTPS request to `https://<host><path>` through the proxy, verifying the real name against `ca`. */
async function viaProxy(
  host: string,
  path: string,
  opts: {
    ca?: string;
    form?: Record<string, string>;
    hostHeader?: string;
  } = {},
): Promise<{ status: number; body: any }> {
  const { status, socket } = await tunnel(`${host}:443`);
  assert.equal(status, 200, `CONNECT ${host}:443`);
  const tlsSocket = connect({
    socket,
    servername: host,
    ca: opts.ca ?? proxy.caPem,
  });
  await new Promise<void>((resolve, reject) => {
    tlsSocket.once('secureConnect', () => resolve());
    tlsSocket.once('error', reject);
  });
  const payload = opts.form && new URLSearchParams(opts.form).toString();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host,
        path,
        method: payload ? 'POST' : 'GET',
        createConnection: () => tlsSocket,
        headers: {
          Host: opts.hostHeader ?? host,
          ...(payload
            ? { 'Content-Type': 'application/x-www-form-urlencoded' }
            : {}),
        },
      },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', d => (text += d));
        res.on('end', () => {
          tlsSocket.destroy();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* text */
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

before(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'capz-proxy-'));
  entra = await startEntraSim({
    stateDir,
    applications: [...ARM_AUDIENCES],
    servicePrincipals: [
      { tenantId: TENANT, clientId: CLIENT, clientSecret: 's' },
    ],
  });
  proxy = await startSimProxy({
    stateDir,
    upstreams: {
      [ENTRA_HOST]: { url: entra.url, caPem: entra.caPem },
      // An ARM upstream that is not listening: the proxy answers 502 and records it.
      [ARM_HOST]: { url: 'https://127.0.0.1:1', caPem: entra.caPem },
    },
    log: l => logged.push(l),
  });
});
after(async () => {
  await proxy?.close();
  await entra?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

test('login.microsoftonline.com through the proxy: the real name, the proxy CA, Host and path unchanged', async () => {
  const before = proxy.requests.length;
  const res = await viaProxy(
    ENTRA_HOST,
    `/${TENANT}/v2.0/.well-known/openid-configuration`,
  );
  assert.equal(res.status, 200);
  // The Entra ID saw Host login.microsoftonline.com: its endpoints are on the real name.
  assert.equal(res.body.issuer, `https://${ENTRA_HOST}/${TENANT}/v2.0`);
  assert.equal(
    res.body.token_endpoint,
    `https://${ENTRA_HOST}/${TENANT}/oauth2/v2.0/token`,
  );

  const token = await viaProxy(ENTRA_HOST, `/${TENANT}/oauth2/v2.0/token`, {
    form: {
      grant_type: 'client_credentials',
      client_id: CLIENT,
      client_secret: 's',
      scope: 'https://management.core.windows.net//.default',
    },
  });
  assert.equal(token.status, 200, JSON.stringify(token.body));
  assert.ok(
    entra.verify(
      token.body.access_token,
      'https://management.core.windows.net/',
    ),
  );
  assert.deepEqual(proxy.requests.slice(before), [
    {
      host: ENTRA_HOST,
      method: 'GET',
      path: `/${TENANT}/v2.0/.well-known/openid-configuration`,
      status: 200,
    },
    {
      host: ENTRA_HOST,
      method: 'POST',
      path: `/${TENANT}/oauth2/v2.0/token`,
      status: 200,
    },
  ]);
  assert.ok((proxy.counts()[ENTRA_HOST] ?? 0) >= 2);
});

test('the tunnel is only trusted with the proxy CA, which names only the simulated hosts and loopback', async () => {
  const { socket } = await tunnel(`${ENTRA_HOST}:443`);
  const wrongCa = connect({ socket, servername: ENTRA_HOST, ca: entra.caPem });
  const err = await new Promise<Error>(resolve =>
    wrongCa.once('error', resolve),
  );
  assert.match(err.message, /self[- ]signed|unable to (get|verify)/i);
  wrongCa.destroy();

  const ok = await tunnel(`${ARM_HOST}:443`);
  const tlsSocket = connect({
    socket: ok.socket,
    servername: ARM_HOST,
    ca: proxy.caPem,
  });
  await new Promise<void>((resolve, reject) => {
    tlsSocket.once('secureConnect', () => resolve());
    tlsSocket.once('error', reject);
  });
  assert.equal(
    tlsSocket.getPeerCertificate().subjectaltname,
    `IP Address:127.0.0.1, DNS:localhost, DNS:${ENTRA_HOST}, DNS:${ARM_HOST}`,
  );
  tlsSocket.destroy();
});

test('any other host is refused at CONNECT and recorded; nothing is forwarded', async () => {
  const forwarded = proxy.requests.length;
  for (const target of [
    'graph.microsoft.com:443',
    `${ENTRA_HOST}:80`,
    'example.com:443',
  ]) {
    const { status, socket } = await tunnel(target);
    socket.destroy();
    assert.equal(status, 403, target);
    assert.equal(proxy.refused.at(-1)?.target, target);
  }
  assert.equal(proxy.requests.length, forwarded);
  assert.ok(logged.some(l => l.includes('graph.microsoft.com:443')));

  // A plain-HTTP proxy request is refused too.
  const plain = await new Promise<number>((resolve, reject) => {
    const u = new URL(proxy.url);
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: 'http://management.azure.com/subscriptions?api-version=2022-12-01',
        headers: { Host: 'management.azure.com' },
      },
      res => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
  assert.equal(plain, 403);
  assert.equal(proxy.refused.at(-1)?.host, 'management.azure.com');
  assert.equal(proxy.requests.length, forwarded);
});

test("a Host that is not the tunnel's is refused (421), and an unreachable upstream is a 502", async () => {
  const mismatch = await viaProxy(ENTRA_HOST, '/common/discovery/instance', {
    hostHeader: 'example.com',
  });
  assert.equal(mismatch.status, 421);
  assert.equal(proxy.refused.at(-1)?.host, 'example.com');

  const down = await viaProxy(
    ARM_HOST,
    '/subscriptions?api-version=2022-12-01',
  );
  assert.equal(down.status, 502);
  assert.deepEqual(proxy.requests.at(-1), {
    host: ARM_HOST,
    method: 'GET',
    path: '/subscriptions?api-version=2022-12-01',
    status: 502,
  });
});

test('the CA bundle is the system CAs followed by the proxy CA; clientEnv names it', () => {
  const system = join(stateDir, 'system.pem');
  writeFileSync(
    system,
    '-----BEGIN CERTIFICATE-----\nsystem\n-----END CERTIFICATE-----\n',
  );
  const file = proxy.writeCaBundle(join(stateDir, 'bundle.pem'), system);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith('-----BEGIN CERTIFICATE-----\nsystem\n'));
  assert.ok(text.trimEnd().endsWith(proxy.caPem.trim()));
  assert.deepEqual(proxy.clientEnv(file), {
    HTTPS_PROXY: proxy.url,
    SSL_CERT_FILE: file,
    NO_PROXY: '127.0.0.1,localhost',
  });
});
