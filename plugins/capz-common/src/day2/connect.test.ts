import { clusterOf, edit, world } from './__fixtures__/cluster';
import { connectInfo } from './connect';
import { readDay2Cluster } from './snapshot';

describe('connect', () => {
  it('gives az aks get-credentials for the AKS cluster and the management cluster commands, no secret', () => {
    const objects = world();
    const info = connectInfo(
      readDay2Cluster(clusterOf(objects), objects),
      'mc',
    );
    expect(info.commands).toEqual([
      'az aks get-credentials --resource-group alpha --name alpha --subscription 00000000-0000-0000-0000-000000000001 --file alpha.kubeconfig',
      'clusterctl get kubeconfig alpha --namespace team-a > alpha.kubeconfig',
      "kubectl --namespace team-a get secret alpha-kubeconfig -o jsonpath='{.data.value}' | base64 -d > alpha.kubeconfig",
    ]);
  });

  it('adds kubelogin for an Entra-only cluster', () => {
    const objects = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      (o.spec!.resources as any[])[0].spec.disableLocalAccounts = true;
    });
    const info = connectInfo(
      readDay2Cluster(clusterOf(objects), objects),
      'mc',
    );
    expect(info.commands[1]).toBe(
      'kubelogin convert-kubeconfig -l azurecli --kubeconfig alpha.kubeconfig',
    );
    expect(info.notes.join(' ')).toMatch(/Entra ID only/);
  });

  it('says in advance whether the kubeconfig download is available, and why not', () => {
    const info = (objects: ReturnType<typeof world>, allow = false) =>
      connectInfo(readDay2Cluster(clusterOf(objects), objects), 'mc', {
        azure: true,
        allowLocalAccountKubeconfig: allow,
      }).kubeconfig;
    // No Entra ID: AKS's user kubeconfig is a local account's secret, refused unless the operator allows it.
    expect(info(world())).toEqual({
      available: false,
      reason: expect.stringMatching(
        /^This cluster does not use Entra ID: .* Use az aks get-credentials with your own Azure access/,
      ),
    });
    expect(info(world())?.reason).not.toMatch(/preview|written/);
    expect(info(world(), true)).toEqual({ available: true });
    const entra = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      (o.spec!.resources as any[])[0].spec.aadProfile = { managed: true };
    });
    expect(info(entra)).toEqual({ available: true });
    // Without Azure access on the backend, none.
    expect(
      connectInfo(readDay2Cluster(clusterOf(entra), entra), 'mc', {
        azure: false,
        allowLocalAccountKubeconfig: false,
      }).kubeconfig,
    ).toEqual({
      available: false,
      reason: expect.stringMatching(/no Azure access configured/),
    });
  });
});
