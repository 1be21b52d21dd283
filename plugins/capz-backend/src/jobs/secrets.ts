import type { ClusterClient } from './ClusterClient';

/** A Secret's data, base64-decoded; undefined when it does not exist. */
export type SecretReader = (
  managementCluster: string,
  namespace: string,
  name: string,
) => Promise<Record<string, string> | undefined>;

/**
 * The one Secret lookup of the jobs code (Azure discovery's credential, the wizard's credential Secrets): one live
 * GET by name, never a list (that would hand the backend every value in the namespace).
 */
export const secretReader =
  (
    client: (managementCluster: string) => Promise<ClusterClient>,
  ): SecretReader =>
  async (managementCluster, namespace, name) => {
    const s = await (
      await client(managementCluster)
    ).get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    if (!s) return undefined;
    const data = (s as { data?: Record<string, string> }).data ?? {};
    return Object.fromEntries(
      Object.entries(data).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
  };
