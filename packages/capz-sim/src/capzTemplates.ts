/**
 * CAPZ's own cluster templates (`templates/cluster-template-<flavor>.yaml` of the CAPZ module the real managers are
 * built from, read from the Go module cache as the CRDs are), with clusterctl's variable syntax substituted:
 * `${VAR}` and `${VAR:=default}` (clusterctl's envsubst; an unset variable without default is an error, as there).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { moduleDir } from '@internal/mgmt-cluster/controllers';
import { parseAllDocuments } from 'yaml';

export interface TemplateObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The CAPZ module's directory in the module cache (downloaded if missing). */
export const capzModuleDir = (): string => moduleDir('capz');

/** The objects of one flavor's template for cluster `name` in `namespace`. */
export function capzTemplate(
  flavor: string,
  name: string,
  namespace: string,
  vars: Record<string, string>,
): TemplateObject[] {
  const file = join(
    capzModuleDir(),
    'templates',
    `cluster-template-${flavor}.yaml`,
  );
  // Innermost first, until none is left: defaults may nest (`${AZURE_RESOURCE_GROUP:=${CLUSTER_NAME}}` in aks).
  let text = readFileSync(file, 'utf8');
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(
      /\$\{([A-Z0-9_]+)(?::=([^${}]*))?\}/g,
      (_, v: string, dflt?: string) => {
        const value = v === 'CLUSTER_NAME' ? name : vars[v] ?? dflt;
        if (value === undefined)
          throw new Error(`${file}: variable ${v} is not set`);
        return value;
      },
    );
  }
  return parseAllDocuments(text)
    .map(d => d.toJS() as TemplateObject | null)
    .filter((o): o is TemplateObject => Boolean(o))
    .map(o => ({ ...o, metadata: { ...o.metadata, namespace } }));
}
