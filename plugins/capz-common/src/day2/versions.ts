/**
 * Kubernetes versions as CAPI writes them (`v1.33.2`) and the upgrade rules AKS enforces
 * (docs/capz-aso-facts.md#day2-upgrade-rules): no downgrade, no skipped minor, no pool newer than the control plane.
 */

/** `v1.33.2` (the leading v optional) as numbers; undefined when it is not a version. @public */
export function parseKubernetesVersion(
  v: string | undefined,
): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative when a is older than b, 0 when equal, positive when newer; unparsable versions sort first. @public */
export function compareKubernetesVersions(a: string, b: string): number {
  const pa = parseKubernetesVersion(a) ?? [-1, -1, -1];
  const pb = parseKubernetesVersion(b) ?? [-1, -1, -1];
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** With the leading v, as CAPI writes it. @public */
export const withV = (v: string) => (v.startsWith('v') ? v : `v${v}`);

/**
 * A Kubernetes version as every page and dialog shows it: `v1.33.2`, the form CAPI writes, whether it was read from
 * CAPI (`v1.33.2`) or from AKS (`1.33.2`), so both sides of an arrow read alike. What is not a version stays as it is.
 * @public
 */
export function displayKubernetesVersion(v: string): string {
  const t = v.trim();
  return parseKubernetesVersion(t) ? withV(t) : v;
}

/**
 * Why the control plane may not move from `current` to `target`, or undefined when it may: not a downgrade, and at
 * most one minor ahead (AKS: "Kubernetes minor versions cannot be skipped"). Equal versions are allowed (a no-op).
 * @public
 */
export function controlPlaneStepError(
  current: string,
  target: string,
): { rule: 'no-downgrade' | 'no-skipped-minor'; message: string } | undefined {
  const c = parseKubernetesVersion(current);
  const t = parseKubernetesVersion(target);
  if (!c || !t) return undefined;
  if (compareKubernetesVersions(target, current) < 0)
    return {
      rule: 'no-downgrade',
      message: `${withV(target)} is older than the control plane's ${withV(
        current,
      )}: AKS cannot downgrade Kubernetes`,
    };
  if (t[0] !== c[0] || t[1] > c[1] + 1)
    return {
      rule: 'no-skipped-minor',
      message: `${withV(target)} skips a minor version: from ${withV(
        current,
      )} the control plane can only move to ${c[0]}.${c[1]} or ${c[0]}.${
        c[1] + 1
      } (AKS does not skip minor versions)`,
    };
  return undefined;
}

/**
 * The versions the control plane may move to next, from those AKS offers in the region: newer than `current`, at most
 * one minor ahead; newest first. @public
 */
export function nextControlPlaneVersions(
  current: string,
  offered: readonly string[],
): string[] {
  return [...new Set(offered.map(withV))]
    .filter(
      v =>
        compareKubernetesVersions(v, current) > 0 &&
        !controlPlaneStepError(current, v),
    )
    .sort((a, b) => compareKubernetesVersions(b, a));
}
