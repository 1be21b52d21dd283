import type { AccessToken, TokenCredential } from '@azure/identity';
import { mockServices } from '@backstage/backend-test-utils';
import { ManagementClusterConfig } from '../config/managementClusters';
import {
  AKS_SERVER_APPLICATION_ID,
  AzureTokenProvider,
  azureTokenProviderFor,
} from './azureToken';

const MIN = 60_000;

/** A credential whose answers the test hands out one by one, with the scopes it was asked for. */
class FakeCredential implements TokenCredential {
  readonly scopes: string[] = [];
  private pending: Array<{
    resolve: (t: AccessToken | null) => void;
    reject: (e: Error) => void;
  }> = [];

  getToken(scopes: string | string[]): Promise<AccessToken | null> {
    this.scopes.push(...[scopes].flat());
    return new Promise((resolve, reject) =>
      this.pending.push({ resolve, reject }),
    );
  }

  get calls() {
    return this.scopes.length;
  }

  /** Answers the oldest open request. */
  give(
    token: string,
    expiresOnTimestamp: number,
    extra: Partial<AccessToken> = {},
  ) {
    const next = this.pending.shift();
    if (!next) throw new Error('no token request is open');
    next.resolve({ token, expiresOnTimestamp, tokenType: 'Bearer', ...extra });
  }

  fail(message: string) {
    const next = this.pending.shift();
    if (!next) throw new Error('no token request is open');
    next.reject(new Error(message));
  }
}

/** Lets promise callbacks run (the provider's bookkeeping after a credential answer). */
const settle = () => new Promise(r => setImmediate(r));

function setup(marginSeconds = 300) {
  let now = 1_000_000;
  const credential = new FakeCredential();
  const logger = mockServices.logger.mock();
  const provider = new AzureTokenProvider({
    credential,
    scope: `${AKS_SERVER_APPLICATION_ID}/.default`,
    refreshMarginSeconds: marginSeconds,
    clusterName: 'prod',
    logger,
    now: () => now,
  });
  return {
    credential,
    provider,
    logger,
    at: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('AzureTokenProvider', () => {
  it('asks for the AKS server application scope and shares one request between concurrent callers', async () => {
    const { credential, provider, at } = setup();
    const callers = Promise.all([
      provider.getToken(),
      provider.getToken(),
      provider.getToken(),
    ]);
    expect(credential.calls).toBe(1);
    expect(credential.scopes).toEqual([
      '6dae42f8-4368-4678-94ff-3960e28e3630/.default',
    ]);
    credential.give('t1', at() + 60 * MIN);
    expect(await callers).toEqual(['t1', 't1', 't1']);
    expect(await provider.getToken()).toBe('t1');
    expect(credential.calls).toBe(1);
  });

  it('refreshes in the background within the margin while callers keep the current token', async () => {
    const { credential, provider, at, advance } = setup(300);
    const first = provider.getToken();
    credential.give('t1', at() + 60 * MIN);
    await first;

    advance(54 * MIN); // 6 min left: outside the 5 min margin
    expect(await provider.getToken()).toBe('t1');
    expect(credential.calls).toBe(1);

    advance(2 * MIN); // 4 min left: inside the margin
    expect(await provider.getToken()).toBe('t1'); // did not wait for the refresh
    expect(await provider.getToken()).toBe('t1'); // joins the running refresh, no second request
    expect(credential.calls).toBe(2);
    credential.give('t2', at() + 60 * MIN);
    await settle();
    expect(await provider.getToken()).toBe('t2');
    expect(credential.calls).toBe(2);
    expect(provider.status()).toMatchObject({
      refreshes: 2,
      failures: 0,
      lastError: undefined,
    });
  });

  it('keeps the old token through failed refreshes until it expires, with backoff, then fails and recovers', async () => {
    const { credential, provider, logger, at, advance } = setup(300);
    const first = provider.getToken();
    const expiresOn = at() + 60 * MIN;
    credential.give('t1', expiresOn);
    await first;

    advance(56 * MIN);
    expect(await provider.getToken()).toBe('t1');
    credential.fail(
      'AADSTS7000215: Invalid client secret provided.\nTrace ID: x',
    );
    await settle();
    expect(provider.status()).toMatchObject({
      failures: 1,
      lastError: 'AADSTS7000215: Invalid client secret provided.',
    });
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining('keeping the current token'),
    );

    // Within the backoff no new request; after it, the next caller starts one (and still gets the old token).
    expect(await provider.getToken()).toBe('t1');
    expect(credential.calls).toBe(2);
    advance(1_000);
    expect(await provider.getToken()).toBe('t1');
    expect(credential.calls).toBe(3);
    credential.fail('authority unreachable');
    await settle();

    // Past expiry (minus the skew allowance) the old token is no longer handed out: callers wait, then fail.
    advance(expiresOn - at());
    const waiting = provider.getToken();
    expect(credential.calls).toBe(4);
    credential.fail('authority unreachable');
    await expect(waiting).rejects.toThrow(
      'Entra ID token for management cluster prod: authority unreachable',
    );
    // Within the backoff, callers fail at once without asking the authority again.
    await expect(provider.getToken()).rejects.toThrow('authority unreachable');
    expect(credential.calls).toBe(4);

    advance(30_000);
    const recovered = provider.getToken();
    expect(credential.calls).toBe(5);
    credential.give('t2', at() + 60 * MIN);
    expect(await recovered).toBe('t2');
    expect(provider.status()).toMatchObject({
      lastError: undefined,
      failures: 0,
    });
    expect(logger.info).toHaveBeenCalledWith(
      expect.stringContaining('refreshed again'),
    );
  });

  it('never spends more than half of a short lifetime in the margin, and stops using a token just before expiry', async () => {
    const { credential, provider, at, advance } = setup(300);
    const first = provider.getToken();
    credential.give('short', at() + 10_000); // 10 s token, 300 s margin
    await first;
    advance(4_000);
    expect(await provider.getToken()).toBe('short');
    expect(credential.calls).toBe(1);
    advance(1_000); // half the lifetime
    expect(await provider.getToken()).toBe('short');
    expect(credential.calls).toBe(2);
    credential.fail('slow authority');
    await settle();
    advance(4_500); // 0.5 s left, inside the 1 s (10% of the lifetime) kept for transit and clock skew
    const waiting = provider.getToken();
    expect(credential.calls).toBe(3);
    credential.give('next', at() + 10_000);
    expect(await waiting).toBe('next');
  });

  it('refreshes when the credential says so (refreshAfterTimestamp) even outside the margin', async () => {
    const { credential, provider, at, advance } = setup(300);
    const first = provider.getToken();
    credential.give('mi', at() + 24 * 60 * MIN, {
      refreshAfterTimestamp: at() + 12 * 60 * MIN,
    });
    await first;
    advance(12 * 60 * MIN);
    expect(await provider.getToken()).toBe('mi');
    expect(credential.calls).toBe(2);
  });

  it('asks again later, not on every request, when a credential cache returns the token it already has', async () => {
    const { credential, provider, at, advance } = setup(600); // wider than MSAL's 300 s renewal window
    const first = provider.getToken();
    const expiresOn = at() + 60 * MIN;
    credential.give('cached', expiresOn);
    await first;
    advance(51 * MIN);
    await provider.getToken();
    expect(credential.calls).toBe(2);
    credential.give('cached', expiresOn);
    await settle();
    await provider.getToken();
    await provider.getToken();
    expect(credential.calls).toBe(2);
    advance(30_000);
    await provider.getToken();
    expect(credential.calls).toBe(3);
  });

  it('rejects a missing or already expired token', async () => {
    const { credential, provider, at } = setup();
    const first = provider.getToken();
    credential.give('old', at() - 1);
    await expect(first).rejects.toThrow('expired token');
  });
});

describe('azureTokenProviderFor', () => {
  const cluster = (): ManagementClusterConfig => ({
    name: 'prod',
    authMethod: 'azure',
    url: 'https://aks.example',
    azure: {
      credential: 'clientSecret',
      tenantId: 'tenant',
      clientId: 'client',
      clientSecret: 's3cret',
    },
  });

  it('shares one provider per configured cluster between the watch cache and the monitor', () => {
    const c = cluster();
    expect(azureTokenProviderFor(c)).toBe(azureTokenProviderFor(c));
    expect(azureTokenProviderFor(cluster())).not.toBe(azureTokenProviderFor(c));
  });

  it('reports a misconfigured credential when it is built', () => {
    expect(() =>
      azureTokenProviderFor({
        ...cluster(),
        azure: {
          credential: 'clientSecret',
          tenantId: 'not a tenant!',
          clientId: 'c',
          clientSecret: 's',
        },
      }),
    ).toThrow(/tenant/i);
  });
});
