import { Flex, Text } from '@backstage/ui';
import type {
  Day2Plan,
  ObjectChange,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { HealthLabel } from '../shared/health';
import { isPaused, poolsOf, sameVersion } from './pools';

function findNode(tree: TreeNode, kind: string, name: string) {
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.kind === kind && n.name === name) return n;
    stack.push(...n.children);
  }
  return undefined;
}

/** The first condition that is not True: what is still moving on this object. */
function moving(node: TreeNode) {
  const c = node.conditions.find(x => x.status !== 'True');
  return c ? `${c.type} ${c.status}${c.reason ? ` (${c.reason})` : ''}` : '';
}

function ObjectLine({
  tree,
  change,
}: {
  tree: TreeNode;
  change: ObjectChange;
}) {
  const node = findNode(tree, change.kind, change.name);
  const what = `${change.kind} ${change.name}`;
  if (!node) {
    return (
      <li>
        <Text variant="body-small">
          {change.operation === 'delete'
            ? `${what}: gone (done)`
            : `${what}: not seen yet`}
        </Text>
      </li>
    );
  }
  const m = moving(node);
  return (
    <li>
      <Flex gap="2" align="center" style={{ flexWrap: 'wrap' }}>
        <Text variant="body-small">{what}:</Text>
        <HealthLabel health={node.health} />
        {m && (
          <Text variant="body-small" color="secondary">
            {m}
          </Text>
        )}
      </Flex>
    </li>
  );
}

/** The pools an action is about, and what "done" means for each (nodes ready, version reached). */
function poolLines(plan: Day2Plan, tree: TreeNode): string[] {
  const a = plan.action;
  const pools = poolsOf(tree);
  const byName = new Map(pools.map(p => [p.name, p]));
  const nodes = (name: string) => {
    const p = byName.get(name);
    if (!p) return `pool ${name}: not in the cluster (yet)`;
    const ready = p.readyReplicas ?? 0;
    const want = p.replicas ?? 0;
    const done = ready === want && p.health === 'healthy';
    return `pool ${name}: ${ready} of ${want} nodes ready${
      p.autoscaling ? " (AKS's autoscaler owns the count)" : ''
    }${done ? ' (done)' : ''}`;
  };
  switch (a.action) {
    case 'scale':
    case 'autoscale':
    case 'removePool':
      if (a.action === 'removePool')
        return [
          byName.has(a.pool)
            ? `pool ${a.pool}: being removed`
            : `pool ${a.pool}: removed (done)`,
        ];
      return [nodes(a.pool)];
    case 'addPool':
      return [nodes(a.pool.name)];
    case 'upgrade': {
      if (a.target === 'controlPlane') {
        const cp = tree.children.find(c => /ControlPlane$/.test(c.kind));
        const at = cp?.facts.kubernetesVersion;
        const now = typeof at === 'string' ? at : undefined;
        return [
          `control plane: ${now ?? 'version unknown'}${
            sameVersion(now, a.version) && cp?.health === 'healthy'
              ? ' (done)'
              : ` → ${a.version}`
          }`,
        ];
      }
      return a.target.pools.map(name => {
        const p = byName.get(name);
        const now = p?.currentVersion ?? p?.version;
        return `pool ${name}: ${now ?? 'version unknown'}${
          sameVersion(now, a.version) && p?.health === 'healthy'
            ? ' (done)'
            : ` → ${a.version}`
        }`;
      });
    }
    case 'pause':
      return [
        isPaused(tree)
          ? 'reconciliation paused (done)'
          : 'waiting for the pause',
      ];
    case 'resume':
      return [
        isPaused(tree)
          ? 'waiting for the resume'
          : 'reconciliation resumed (done)',
      ];
    default:
      return [];
  }
}

/**
 * Whether what the action is about has arrived: every pool line says done and every object it wrote is healthy
 * (or, for a delete, gone).
 */
export function actionDone(plan: Day2Plan, tree: TreeNode): boolean {
  const lines = poolLines(plan, tree);
  return (
    lines.length > 0 &&
    lines.every(l => l.endsWith('(done)')) &&
    plan.changes.every(c => {
      const node = findNode(tree, c.kind, c.name);
      return c.operation === 'delete' ? !node : node?.health === 'healthy';
    })
  );
}

/**
 * Live progress after an action: the pools it is about (nodes ready, version reached) and, for each object it
 * wrote, the object's health and the condition still moving. `tree` is the cluster's ungrouped tree, refreshed by
 * the page's live updates.
 */
export function ActionProgress({
  plan,
  tree,
  title = 'Progress (live)',
}: {
  plan: Day2Plan;
  tree?: TreeNode;
  title?: string;
}) {
  if (!tree) return null;
  const lines = poolLines(plan, tree);
  return (
    <section aria-label="Progress">
      <Flex direction="column" gap="1">
        <Text variant="body-small" weight="bold">
          {title}
        </Text>
        {lines.map(l => (
          <Text key={l} variant="body-small">
            {l}
          </Text>
        ))}
        <ul style={{ margin: 0, paddingLeft: 20 }}>
          {plan.changes.map(c => (
            <ObjectLine key={`${c.kind}/${c.name}`} tree={tree} change={c} />
          ))}
        </ul>
      </Flex>
    </section>
  );
}
