import { join } from 'node:path';
import { runBuildScript } from './buildScript.ts';
import { packageDir } from './paths.ts';

export interface KubeBinaries {
  dir: string;
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
}

/**
 * Builds (or finds already built) etcd, kube-apiserver and kube-controller-manager from the Go modules pinned in
 * go/kube and go/etcd. The script caches by a hash of the pins, so this is instant after the first build.
 */
export async function ensureBinaries(): Promise<KubeBinaries> {
  const script = join(packageDir, 'scripts', 'build-binaries.sh');
  const dir = await runBuildScript(script);
  return {
    dir,
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
  };
}
