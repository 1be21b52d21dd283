import type { ScmIntegration } from '@backstage/integration';

/** HTTP Basic credentials for a Git server's smart-HTTP endpoint. @public */
export interface GitCredentials {
  username: string;
  password: string;
}

/**
 * HTTP credentials for the repository from the `integrations` config of its host, if any: the token (or user and
 * password) the scaffolder's own publish actions use. A plain Git server with no integration gets none.
 * @public
 */
export function credentialsFor(
  integration: ScmIntegration | undefined,
): GitCredentials | undefined {
  if (!integration) return undefined;
  // Every integration class carries its host's config; the ScmIntegration interface does not declare it.
  const c =
    (integration as unknown as { config?: Record<string, any> }).config ?? {};
  switch (integration.type) {
    case 'github':
      return c.token
        ? { username: 'x-access-token', password: c.token }
        : undefined;
    case 'gitlab':
      return c.token ? { username: 'oauth2', password: c.token } : undefined;
    case 'azure': {
      const pat = (c.credentials as any[] | undefined)?.find(
        x => x.personalAccessToken,
      )?.personalAccessToken;
      return pat ? { username: 'pat', password: pat } : undefined;
    }
    case 'bitbucketCloud':
      return c.username && (c.appPassword || c.token)
        ? { username: c.username, password: c.appPassword ?? c.token }
        : undefined;
    default:
      // gitea, bitbucketServer, gerrit...: user and password, or a token.
      if (c.username && c.password)
        return { username: c.username, password: c.password };
      if (c.token) return { username: c.username ?? 'git', password: c.token };
      return undefined;
  }
}
