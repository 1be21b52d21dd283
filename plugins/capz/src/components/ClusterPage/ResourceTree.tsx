import { TreeNode } from '@capz-backstage/plugin-capz-common';
import { RiArrowRightSLine } from '@remixicon/react';
import {
  Button,
  Collection,
  Key,
  Tree,
  TreeItem,
  TreeItemContent,
} from 'react-aria-components';
import { HEALTH_LABEL, HealthIcon } from '../shared/health';
import { absoluteTime, relativeTime } from '../shared/time';

function rowBackground(
  selected: boolean,
  hovered: boolean,
): string | undefined {
  if (selected) return 'var(--bui-bg-neutral-2, rgba(0,0,0,0.08))';
  if (hovered) return 'var(--bui-bg-neutral-1, rgba(0,0,0,0.04))';
  return undefined;
}

/** What a row says, as one line: the tree's accessible name for the row and its typeahead text. */
export function describeNode(n: TreeNode): string {
  const parts = [
    `${
      n.group
        ? `Group of ${n.group.count} ${n.group.kind}s`
        : `${n.kind} ${n.name}`
    }`,
    HEALTH_LABEL[n.health],
  ];
  if (n.reason && n.health !== 'healthy') parts.push(n.reason);
  return parts.join(', ');
}

function Row({ node, now }: { node: TreeNode; now: number }) {
  const since = relativeTime(node.since, now);
  return (
    <TreeItemContent>
      {({ hasChildItems, isExpanded }) => (
        <div
          style={{ display: 'flex', alignItems: 'center', gap: 6, minWidth: 0 }}
        >
          {hasChildItems ? (
            <Button
              slot="chevron"
              aria-label={isExpanded ? 'Collapse' : 'Expand'}
              style={{
                display: 'inline-flex',
                border: 0,
                background: 'none',
                padding: 0,
                color: 'inherit',
                cursor: 'pointer',
                transform: isExpanded ? 'rotate(90deg)' : undefined,
                transition: 'transform 100ms',
              }}
            >
              <RiArrowRightSLine size={16} aria-hidden />
            </Button>
          ) : (
            <span style={{ width: 16, flex: 'none' }} />
          )}
          <HealthIcon health={node.health} />
          <span style={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
            {node.group
              ? `${node.group.count} × ${node.group.kind}`
              : node.kind}
          </span>
          <span style={{ whiteSpace: 'nowrap' }}>
            {node.group ? '' : node.name}
          </span>
          {node.health !== 'healthy' && node.reason && (
            // Default text colour (the icon carries the health colour): warning-coloured text fails WCAG contrast.
            <span style={{ fontWeight: 500, whiteSpace: 'nowrap' }}>
              {node.reason}
            </span>
          )}
          {node.health !== 'healthy' && node.message && (
            <span
              style={{
                color: 'var(--bui-fg-secondary)',
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                whiteSpace: 'nowrap',
                minWidth: 0,
              }}
              title={node.message}
            >
              {node.message}
            </span>
          )}
          {since && (
            <span
              style={{
                marginLeft: 'auto',
                color: 'var(--bui-fg-secondary)',
                whiteSpace: 'nowrap',
                paddingLeft: 8,
              }}
              title={absoluteTime(node.since)}
            >
              {HEALTH_LABEL[node.health]} {since}
            </span>
          )}
        </div>
      )}
    </TreeItemContent>
  );
}

/**
 * The cluster's resource tree: react-aria-components' Tree, which implements the ARIA tree pattern (as a treegrid:
 * rows with aria-level and aria-expanded; arrow keys move and expand/collapse, Home/End, typeahead) and single
 * selection. Selecting a row opens its details.
 */
export function ResourceTree(props: {
  tree: TreeNode;
  label: string;
  selected?: string;
  onSelect: (id: string) => void;
  expanded: Set<string>;
  onExpandedChange: (keys: Set<string>) => void;
  now?: number;
}) {
  const now = props.now ?? Date.now();
  const renderItem = (node: TreeNode) => (
    <TreeItem
      id={node.id}
      textValue={describeNode(node)}
      aria-label={describeNode(node)}
      style={({ isSelected, isFocusVisible, isHovered, level }) => ({
        paddingLeft: `calc(${level - 1} * 20px + 4px)`,
        paddingRight: 8,
        paddingBlock: 4,
        borderRadius: 4,
        cursor: 'default',
        outline: isFocusVisible ? '2px solid var(--bui-ring, #1f5493)' : 'none',
        outlineOffset: -2,
        background: rowBackground(isSelected, isHovered),
      })}
    >
      <Row node={node} now={now} />
      <Collection items={node.children}>{renderItem}</Collection>
    </TreeItem>
  );

  return (
    <Tree
      aria-label={props.label}
      items={[props.tree]}
      selectionMode="single"
      disallowEmptySelection={false}
      selectedKeys={props.selected ? [props.selected] : []}
      onSelectionChange={keys => {
        if (keys === 'all') return;
        const [first] = [...keys];
        if (first !== undefined) props.onSelect(String(first));
      }}
      expandedKeys={props.expanded}
      onExpandedChange={keys =>
        props.onExpandedChange(new Set([...keys].map((k: Key) => String(k))))
      }
      style={{
        display: 'flex',
        flexDirection: 'column',
        gap: 1,
        fontSize: 'var(--bui-font-size-3, 14px)',
      }}
    >
      {renderItem}
    </Tree>
  );
}
