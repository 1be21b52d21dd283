/**
 * The one local kube-apiserver that serves as the workload cluster of every simulated AKS cluster
 * (docs/real-controllers.md#workload-clusters). Started with `@internal/mgmt-cluster`'s `startManagementCluster`
 * without CRDs (its kube-controller-manager runs only the garbage collector and the namespace controller, so no node
 * lifecycle controller ever marks a Node NotReady or removes a taint), or attached to a running one.
 *
 * The AKS kubeconfigs carry a client certificate of its CA, `CN=masterclient, O=system:masters`, the identity AKS's
 * own admin kubeconfig has: the real CAPI/CAPZ use it through `<cluster>-kubeconfig` (admin-equivalent, as they need:
 * CAPI v1.13.3 `controllers/clustercache/cluster_accessor_client.go` probes `GET /`, builds a REST mapping for Node,
 * lists and watches Nodes; `internal/controllers/machinepool/machinepool_controller_noderef.go` patches and deletes
 * them). The Node sync itself writes with the server's `capz-admin` token, so the audit log tells the two apart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
  type JwtAuthenticator,
} from '@internal/mgmt-cluster';
import { issueCertificate } from '@internal/mgmt-cluster/pki';

/** What an AKS kubeconfig needs of the workload API server (AzureWorldOptions.kubeconfigFor). */
export interface WorkloadKubeconfig {
  server: string;
  caPem: string;
  token?: string;
  clientCertificatePem?: string;
  clientKeyPem?: string;
}

export interface WorkloadApiServer {
  /** Connection of the server's own admin (`capz-admin`), used by the Node sync. */
  info: ClusterInfo;
  /** What every simulated AKS cluster's credentials point at. */
  kubeconfig: WorkloadKubeconfig;
  /** Stops the server when this process started it; a no-op for an attached one. */
  stop(): Promise<void>;
}

export interface StartWorkloadOptions {
  /** Names the state folder (`.local/mgmt-clusters/<name>`); default `workload`. */
  name?: string;
  stateDir?: string;
  /** etcd without fsync and the state removed on stop (tests). */
  ephemeral?: boolean;
  /**
   * JWT authenticators, e.g. the simulated Entra ID with audience `6dae42f8-4368-4678-94ff-3960e28e3630`: CAPZ puts an
   * Entra token into the kubeconfig of a cluster with local accounts disabled
   * (CAPZ v1.26.0 `controllers/azureasomanagedcontrolplane_controller.go` `reconcileKubeconfig`).
   */
  jwtAuthenticators?: JwtAuthenticator[];
}

/**
 * A client certificate signed by the server's CA (`<stateDir>/pki/ca.{crt,key}`, which the API server trusts through
 * `--client-ca-file`), made once per state folder.
 */
function clientCertificate(stateDir: string): { cert: string; key: string } {
  const dir = join(stateDir, 'pki');
  const cert = join(dir, 'aks-masterclient.crt');
  const key = join(dir, 'aks-masterclient.key');
  if (!existsSync(cert)) {
    issueCertificate({
      ca: { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') },
      files: {
        cert,
        key,
        csr: join(dir, 'aks-masterclient.csr'),
        extFile: join(dir, 'client.ext'),
      },
      subject: '/O=system:masters/CN=masterclient',
      extensions: [
        'extendedKeyUsage=clientAuth',
        'keyUsage=digitalSignature,keyEncipherment',
      ],
    });
  }
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

/** Uses a running API server (e.g. a test run's management cluster) as the workload cluster. */
export function attachWorkloadApiServer(info: ClusterInfo): WorkloadApiServer {
  const { cert, key } = clientCertificate(info.stateDir);
  return {
    info,
    kubeconfig: {
      server: info.url,
      caPem: info.caPem,
      clientCertificatePem: cert,
      clientKeyPem: key,
    },
    stop: async () => {},
  };
}

/** Starts (or reuses, by name) the shared workload API server: etcd + kube-apiserver, no CRDs. */
export async function startWorkloadApiServer(
  opts: StartWorkloadOptions = {},
): Promise<WorkloadApiServer> {
  const info = await startManagementCluster({
    name: opts.name ?? 'workload',
    stateDir: opts.stateDir,
    ephemeral: opts.ephemeral,
    crds: false,
    jwtAuthenticators: opts.jwtAuthenticators,
  });
  return {
    ...attachWorkloadApiServer(info),
    stop: () => stopManagementCluster(info),
  };
}
