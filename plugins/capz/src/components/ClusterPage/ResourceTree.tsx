import { TreeNode } from '@capz-backstage/plugin-capz-common';
import { RiArrowRightSLine } from '@remixicon/react';
import {
  CSSProperties,
  FocusEvent,
  KeyboardEvent,
  memo,
  MouseEvent,
  useCallback,
  useMemo,
  useRef,
  useState,
} from 'react';
import { HEALTH_LABEL, HealthIcon } from '../shared/health';
import { absoluteTime, relativeTime } from '../shared/time';
import { visibleRows } from './treeModel';

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

// Row states through CSS (hover, selection, keyboard focus), so hovering re-renders nothing.
const CSS = `
.capz-tree-row { padding: 4px 8px 4px 0; border-radius: 4px; cursor: default; outline: none; }
.capz-tree-row:hover { background: var(--bui-bg-neutral-1, rgba(0,0,0,0.04)); }
.capz-tree-row[aria-selected="true"] { background: var(--bui-bg-neutral-2, rgba(0,0,0,0.08)); }
.capz-tree-row:focus-visible { outline: 2px solid var(--bui-ring, #1f5493); outline-offset: -2px; }
`;

const CELL: CSSProperties = {
  display: 'flex',
  alignItems: 'center',
  gap: 6,
  minWidth: 0,
};
const CHEVRON: CSSProperties = {
  display: 'inline-flex',
  border: 0,
  background: 'none',
  padding: 0,
  color: 'inherit',
  cursor: 'pointer',
  transition: 'transform 100ms',
};
const CHEVRON_OPEN: CSSProperties = { ...CHEVRON, transform: 'rotate(90deg)' };
const NO_CHEVRON: CSSProperties = { width: 16, flex: 'none' };
// A row never runs past its column. The reason and message sit in a box that takes only the room left (flex basis 0)
// and cut with an ellipsis, the message first. When the kind, name and time alone are too wide (a pool four levels
// deep at 1280 px), the time and the kind give way before the name, and the name keeps its first 12 characters: it
// was the name alone that cut, to "s…". Each cut text keeps its whole in its title.
const SHRINKS: CSSProperties = {
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
  minWidth: 0,
};
const KIND: CSSProperties = {
  ...SHRINKS,
  fontWeight: 600,
  flexShrink: 3,
  minWidth: '8ch',
};
const NAME: CSSProperties = { ...SHRINKS, flexShrink: 1, minWidth: '12ch' };
const WHY: CSSProperties = {
  display: 'flex',
  gap: 6,
  flex: '1 1 0',
  minWidth: 0,
  overflow: 'hidden',
};
// Default text colour (the icon carries the health colour): warning-coloured text fails WCAG contrast.
const REASON: CSSProperties = { ...SHRINKS, fontWeight: 500, flexShrink: 1 };
const MESSAGE: CSSProperties = {
  ...SHRINKS,
  color: 'var(--bui-fg-secondary)',
  flexShrink: 10000,
};
const SINCE: CSSProperties = {
  ...SHRINKS,
  flexShrink: 5,
  minWidth: '6ch',
  color: 'var(--bui-fg-secondary)',
  paddingLeft: 8,
};

/**
 * One row. Memoised: selecting, focusing or expanding re-renders only the rows whose own state changed (the row
 * props are primitives and the node object, which stays the same until the tree is fetched again).
 */
const Row = memo(function TreeRow(props: {
  node: TreeNode;
  level: number;
  posInSet: number;
  setSize: number;
  isExpanded: boolean;
  isSelected: boolean;
  tabbable: boolean;
  now: number;
  rowRef: (id: string, el: HTMLDivElement | null) => void;
  onToggle: (id: string) => void;
}) {
  const { node, level, isExpanded, isSelected, tabbable, now } = props;
  const { rowRef, onToggle } = props;
  const hasChildren = node.children.length > 0;
  const since = relativeTime(node.since, now);
  const kindText = node.group
    ? `${node.group.count} × ${node.group.kind}`
    : node.kind;
  return (
    <div
      role="row"
      ref={el => rowRef(node.id, el)}
      data-key={node.id}
      className="capz-tree-row"
      aria-label={describeNode(node)}
      aria-level={level}
      aria-posinset={props.posInSet}
      aria-setsize={props.setSize}
      aria-expanded={hasChildren ? isExpanded : undefined}
      aria-selected={isSelected}
      tabIndex={tabbable ? 0 : -1}
      style={{ paddingLeft: (level - 1) * 20 + 4 }}
    >
      <div role="gridcell" aria-colindex={1} style={CELL}>
        {hasChildren ? (
          <button
            type="button"
            tabIndex={-1}
            aria-label={isExpanded ? 'Collapse' : 'Expand'}
            style={isExpanded ? CHEVRON_OPEN : CHEVRON}
            // The chevron only expands or collapses: the row's click (selection) must not see it.
            onClick={(e: MouseEvent) => {
              e.stopPropagation();
              onToggle(node.id);
            }}
          >
            <RiArrowRightSLine size={16} aria-hidden />
          </button>
        ) : (
          <span style={NO_CHEVRON} />
        )}
        <HealthIcon health={node.health} />
        <span style={KIND} title={kindText}>
          {kindText}
        </span>
        <span style={NAME} title={node.group ? undefined : node.name}>
          {node.group ? '' : node.name}
        </span>
        <span style={WHY}>
          {node.health !== 'healthy' && node.reason && (
            <span style={REASON} title={node.reason}>
              {node.reason}
            </span>
          )}
          {node.health !== 'healthy' && node.message && (
            <span style={MESSAGE} title={node.message}>
              {node.message}
            </span>
          )}
        </span>
        {since && (
          <span style={SINCE} title={absoluteTime(node.since)}>
            {HEALTH_LABEL[node.health]} {since}
          </span>
        )}
      </div>
    </div>
  );
});

const TYPEAHEAD_MS = 1000;

/**
 * The cluster's resource tree, as the ARIA treegrid pattern: rows with aria-level, aria-posinset/setsize and
 * aria-expanded, one tab stop (roving tabindex); Up/Down move, Right expands or enters, Left collapses or goes to the
 * parent, Home/End, Enter/Space select, typing jumps to the next row whose name starts with what was typed; a click
 * selects, the chevron expands or collapses. Selecting a row opens its details.
 *
 * It was react-aria-components' Tree: its per-row machinery (collection building, press, hover and focus hooks for
 * every row and chevron button) cost ~20 ms a row in jsdom and made a 50-pool tree take seconds. Only the
 * shown rows are rendered; each is memoised.
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
  const { tree, selected, expanded, onSelect, onExpandedChange } = props;
  // "5 minutes ago" as of this tree's fetch: a new clock per render would re-render every row.
  const fetchedAt = useMemo(() => Date.now(), [tree]); // eslint-disable-line react-hooks/exhaustive-deps
  const shownNow = props.now ?? fetchedAt;
  const rows = useMemo(() => visibleRows(tree, expanded), [tree, expanded]);
  const position = useMemo(
    () => new Map(rows.map((r, i) => [r.node.id, i])),
    [rows],
  );
  const [focused, setFocused] = useState<string | undefined>();
  // The one tab stop: the focused row while shown, else the selected row, else the first.
  let tabStop = rows[0]?.node.id;
  if (focused !== undefined && position.has(focused)) tabStop = focused;
  else if (selected !== undefined && position.has(selected)) tabStop = selected;

  const elements = useRef(new Map<string, HTMLDivElement>());
  const rowRef = useCallback((id: string, el: HTMLDivElement | null) => {
    if (el) elements.current.set(id, el);
    else elements.current.delete(id);
  }, []);

  // The latest props for the stable callbacks below (rows stay memoised across renders).
  const latest = useRef({ expanded, onExpandedChange });
  latest.current = { expanded, onExpandedChange };
  const setExpanded = useCallback((id: string, open: boolean) => {
    const cur = latest.current.expanded;
    if (cur.has(id) === open) return;
    const next = new Set(cur);
    if (open) next.add(id);
    else next.delete(id);
    latest.current.onExpandedChange(next);
  }, []);
  const onToggle = useCallback(
    (id: string) => setExpanded(id, !latest.current.expanded.has(id)),
    [setExpanded],
  );

  const moveTo = (id: string | undefined) => {
    if (id === undefined) return;
    setFocused(id);
    elements.current.get(id)?.focus();
  };

  const typed = useRef({ text: '', at: 0 });
  const typeahead = (char: string, from: number) => {
    const t = performance.now();
    const text =
      t - typed.current.at < TYPEAHEAD_MS ? typed.current.text + char : char;
    typed.current = { text, at: t };
    const needle = text.toLowerCase();
    // A new search starts after the current row; a longer one may still match the current row.
    const start = text.length > 1 ? from : from + 1;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[(start + k) % rows.length];
      if (describeNode(r.node).toLowerCase().startsWith(needle)) {
        moveTo(r.node.id);
        return;
      }
    }
  };

  const rowOf = (target: EventTarget): string | undefined =>
    (target as HTMLElement).closest?.<HTMLElement>('[role="row"]')?.dataset.key;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const id = rowOf(e.target);
    if (id === undefined) return;
    const i = position.get(id);
    if (i === undefined) return;
    const row = rows[i];
    const open = expanded.has(id);
    switch (e.key) {
      case 'ArrowDown':
        moveTo(rows[i + 1]?.node.id);
        break;
      case 'ArrowUp':
        moveTo(rows[i - 1]?.node.id);
        break;
      case 'ArrowRight':
        if (row.node.children.length && !open) setExpanded(id, true);
        else if (row.node.children.length) moveTo(rows[i + 1]?.node.id);
        break;
      case 'ArrowLeft':
        if (row.node.children.length && open) setExpanded(id, false);
        else moveTo(row.parent);
        break;
      case 'Home':
        moveTo(rows[0]?.node.id);
        break;
      case 'End':
        moveTo(rows[rows.length - 1]?.node.id);
        break;
      case 'Enter':
      case ' ':
        if (
          e.key === ' ' &&
          performance.now() - typed.current.at < TYPEAHEAD_MS
        )
          typeahead(' ', i);
        else onSelect(id);
        break;
      default:
        if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
          typeahead(e.key, i);
          break;
        }
        return;
    }
    e.preventDefault();
  };

  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const id = rowOf(e.target);
    if (id === undefined) return;
    moveTo(id);
    onSelect(id);
  };

  const onFocus = (e: FocusEvent<HTMLDivElement>) => {
    const id = rowOf(e.target);
    if (id !== undefined && id !== focused) setFocused(id);
  };

  return (
    <>
      <style>{CSS}</style>
      {/* The row handlers sit on the grid (events bubble from the rows), so the memoised rows need no callbacks.
          The rows are the focusable elements (one tab stop), as in the ARIA treegrid pattern. */}
      {/* eslint-disable-next-line jsx-a11y/interactive-supports-focus */}
      <div
        role="treegrid"
        aria-label={props.label}
        aria-multiselectable={false}
        className="capz-resource-tree"
        onKeyDown={onKeyDown}
        onClick={onClick}
        onFocus={onFocus}
        style={{
          display: 'flex',
          flexDirection: 'column',
          gap: 1,
          fontSize: 'var(--bui-font-size-3, 14px)',
        }}
      >
        {rows.map(r => (
          <Row
            key={r.node.id}
            node={r.node}
            level={r.level}
            posInSet={r.posInSet}
            setSize={r.setSize}
            isExpanded={expanded.has(r.node.id)}
            isSelected={r.node.id === selected}
            tabbable={r.node.id === tabStop}
            now={shownNow}
            rowRef={rowRef}
            onToggle={onToggle}
          />
        ))}
      </div>
    </>
  );
}
