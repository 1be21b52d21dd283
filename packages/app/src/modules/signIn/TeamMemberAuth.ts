import type {
  BackstageIdentityApi,
  BackstageIdentityResponse,
  DiscoveryApi,
  ProfileInfo,
  ProfileInfoApi,
  SessionApi,
  SessionState,
} from '@backstage/frontend-plugin-api';
import type { Observable } from '@backstage/types';

/** What a proxy provider's /refresh answers (@backstage/plugin-auth-node's proxy providers, as for the guest). */
interface RefreshResponse {
  profile?: ProfileInfo;
  backstageIdentity: {
    token: string;
    expiresInSeconds?: number;
    identity: BackstageIdentityResponse['identity'];
  };
}

/**
 * The sign-in of a proxy auth provider that asks for nothing (packages/backend/src/demoSignIn.ts), as the guest card
 * signs in with the guest provider: its /refresh issues the session. Core components keep this class internal for
 * the guest (ProxiedSignInIdentity), so it is written here for the demo's second sign-in.
 */
export class TeamMemberAuth
  implements ProfileInfoApi, BackstageIdentityApi, SessionApi
{
  private session?: { response: RefreshResponse; until: number };
  private readonly listeners = new Set<(s: SessionState) => void>();

  constructor(
    private readonly discovery: DiscoveryApi,
    private readonly provider: string,
  ) {}

  private async refresh(): Promise<RefreshResponse> {
    if (this.session && this.session.until > Date.now())
      return this.session.response;
    const base = await this.discovery.getBaseUrl('auth');
    const res = await fetch(`${base}/${this.provider}/refresh`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest' },
      credentials: 'include',
    });
    if (!res.ok)
      throw new Error(
        `Sign-in with ${this.provider} failed: ${
          res.status
        } ${await res.text()}`,
      );
    const response = (await res.json()) as RefreshResponse;
    // Renewed a minute before the token expires (an hour by default).
    const seconds = response.backstageIdentity.expiresInSeconds ?? 3600;
    this.session = { response, until: Date.now() + (seconds - 60) * 1000 };
    this.emit('SignedIn');
    return response;
  }

  async getBackstageIdentity(): Promise<BackstageIdentityResponse> {
    const { backstageIdentity: b } = await this.refresh();
    return { token: b.token, identity: b.identity };
  }

  async getProfile(): Promise<ProfileInfo | undefined> {
    return (await this.refresh()).profile;
  }

  async signIn(): Promise<void> {
    await this.refresh();
  }

  async signOut(): Promise<void> {
    this.session = undefined;
    this.emit('SignedOut');
  }

  sessionState$(): Observable<SessionState> {
    const listeners = this.listeners;
    const signedIn = () => (this.session ? 'SignedIn' : 'SignedOut');
    const observable: Observable<SessionState> = {
      [Symbol.observable]: () => observable,
      subscribe(
        next?: ((s: SessionState) => void) | { next?(s: SessionState): void },
      ) {
        const f = typeof next === 'function' ? next : next?.next?.bind(next);
        if (f) {
          listeners.add(f);
          f(signedIn());
        }
        return {
          closed: false,
          unsubscribe: () => {
            if (f) listeners.delete(f);
          },
        };
      },
    } as Observable<SessionState>;
    return observable;
  }

  private emit(state: SessionState) {
    for (const l of this.listeners) l(state);
  }
}
