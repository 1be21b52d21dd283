/**
 * What a kubeconfig from AKS's `listClusterUserCredential` holds: which of its fields are secrets (an Entra ID
 * cluster's exec kubeconfig has none: docs/capz-aso-facts.md#kubeconfig-download) and which cluster it points at.
 * Pure: works on the parsed YAML.
 */

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A name that says it carries a secret (auth-provider config keys, exec env names). */
const SECRET_NAME = /token|secret|password|passwd|credential|key/i;

/** exec arguments whose next argument (or `=value`) is a secret. */
const SECRET_FLAG =
  /^--?(client-secret|password|token|access-token|refresh-token|client-certificate-password|federated-token)(=|$)/i;

/**
 * Where a parsed kubeconfig carries a secret, as paths (`users[0].user.token`); empty when it has none. A user may only
 * sign in through `exec` (kubelogin) or `auth-provider` whose config, env and arguments hold no secret: every other
 * user field (token, tokenFile, client-key-data, client-certificate-data, username, password, …) counts as one, so a
 * field this check does not know is refused rather than passed. Pure. @public
 */
export function kubeconfigSecrets(kubeconfig: unknown): string[] {
  const found: string[] = [];
  if (!isObj(kubeconfig)) return ['(not a kubeconfig)'];
  list(kubeconfig.users).forEach((u, i) => {
    const user = isObj(u) && isObj(u.user) ? u.user : undefined;
    const at = `users[${i}].user`;
    if (!user) return;
    for (const [key, value] of Object.entries(user)) {
      if (value === null || value === undefined || value === '') continue;
      if (key === 'exec') {
        if (!isObj(value)) {
          found.push(`${at}.exec`);
          continue;
        }
        list(value.env).forEach((e, j) => {
          const name = isObj(e) ? String(e.name ?? '') : '';
          if (!isObj(e) || SECRET_NAME.test(name))
            found.push(`${at}.exec.env[${j}]${name ? ` (${name})` : ''}`);
        });
        list(value.args).forEach((a, j) => {
          if (typeof a === 'string' && SECRET_FLAG.test(a))
            found.push(`${at}.exec.args[${j}] (${a.split('=')[0]})`);
        });
      } else if (key === 'auth-provider') {
        const config = isObj(value) && isObj(value.config) ? value.config : {};
        for (const k of Object.keys(config))
          if (SECRET_NAME.test(k) && config[k])
            found.push(`${at}.auth-provider.config.${k}`);
      } else {
        found.push(`${at}.${key}`);
      }
    }
  });
  return found;
}

/** The API server a kubeconfig points at: public data only. @public */
export interface KubeconfigCluster {
  /** The API server's https URL. */
  server: string;
  /** Base64 PEM, as the kubeconfig's `certificate-authority-data`. */
  certificateAuthorityData?: string;
}

/**
 * The cluster of a parsed kubeconfig's current context (else its first cluster): server and CA, nothing of its
 * users. Undefined when it names no https server. Pure. @public
 */
export function kubeconfigCluster(
  kubeconfig: unknown,
): KubeconfigCluster | undefined {
  if (!isObj(kubeconfig)) return undefined;
  const current = list(kubeconfig.contexts).find(
    c => isObj(c) && c.name === kubeconfig['current-context'],
  );
  const clusterName =
    isObj(current) && isObj(current.context)
      ? current.context.cluster
      : undefined;
  const clusters = list(kubeconfig.clusters).filter(isObj);
  const entry =
    clusters.find(c => clusterName !== undefined && c.name === clusterName) ??
    clusters[0];
  const cluster = isObj(entry?.cluster) ? entry.cluster : undefined;
  const server = cluster?.server;
  if (typeof server !== 'string' || !/^https:\/\//.test(server))
    return undefined;
  const ca = cluster?.['certificate-authority-data'];
  return {
    server,
    ...(typeof ca === 'string' && ca ? { certificateAuthorityData: ca } : {}),
  };
}
