/** `clusterctl describe cluster` of the compared cluster: the reference one tree is compared with. */
import { describeOnce } from '../clusterctl.ts';
import { median, ms } from '../format.ts';
import type { Figures } from '../goals.ts';
import { auditCount } from '../probes.ts';
import type { SeededCluster } from '../seed.ts';
import { auditSize } from '../util.ts';
import type { MeasureContext } from './context.ts';

export async function clusterctlDescribe(
  { info, record }: MeasureContext,
  clusterctl: string,
  target: SeededCluster,
): Promise<Pick<Figures, 'describeMs'>> {
  const first = await describeOnce(
    clusterctl,
    info.kubeconfigPath,
    target.namespace,
    target.name,
  );
  const lines = first.output.trim().split('\n');
  if (!lines.some(l => l.includes(`Cluster/${target.name}`)))
    throw new Error(`clusterctl describe printed no tree:\n${first.output}`);
  const auditStart = auditSize(info.auditLog);
  const times = [];
  for (let i = 0; i < 5; i++)
    times.push(
      (
        await describeOnce(
          clusterctl,
          info.kubeconfigPath,
          target.namespace,
          target.name,
        )
      ).ms,
    );
  await new Promise(r => setTimeout(r, 500));
  const audited = auditCount(info, auditStart, e =>
    (e.userAgent ?? '').startsWith('clusterctl'),
  );
  const describeMs = median(times);
  record(
    `clusterctl describe cluster ${target.name} -n ${target.namespace} (median)`,
    ms(describeMs),
    `CAPI v1.13.3 built from Go modules, 5 runs after one warm-up, \`--show-conditions all\`; includes process start, kubeconfig load and API discovery; ${
      audited.count / 5
    } API requests per run (${audited.detail} over 5 runs); ${
      lines.length
    } lines of output (no ASO objects: describe stops at the CAPZ objects)`,
  );
  return { describeMs };
}
