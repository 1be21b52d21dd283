import { Flex, Text } from '@backstage/ui';
import {
  day2Progress,
  findTreeNode,
  type Day2Plan,
  type ObjectChange,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import type { ReactNode } from 'react';
import { HealthLabel } from '../shared/health';

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
  const node = findTreeNode(tree, change.kind, change.name);
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

/**
 * Whether what the action asked for is observed (capz-common day2Progress): the new state, seen by the controllers,
 * never the state from before the write.
 */
export const actionDone = (plan: Day2Plan, tree: TreeNode): boolean =>
  day2Progress(plan, tree).done;

/** What a dialog shows of an applied action: the live progress, and whether it is done. */
export type ProgressOf = (plan: Day2Plan) => {
  view: ReactNode;
  done: boolean;
};

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
  const lines = day2Progress(plan, tree).items.map(i => i.text);
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
