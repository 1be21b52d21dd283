import {
  Fragment,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type ReactNode,
  type RefObject,
} from 'react';

/** Whether the element's content is wider than it, kept current as either resizes. */
function useScrollsSideways(ref: RefObject<HTMLElement | null>): boolean {
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const check = () => setScrolls(el.scrollWidth > el.clientWidth);
    check();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, [ref]);
  return scrolls;
}

/**
 * A plain data table: the header row from `columns`, the body rows as given (each table styles its own cells). It
 * never widens the page: a table wider than its column scrolls inside its own box.
 */
export function SimpleTable(props: {
  label?: string;
  columns: string[];
  style?: CSSProperties;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const scrolls = useScrollsSideways(ref);
  return (
    <div
      ref={ref}
      style={{ maxWidth: '100%', overflowX: 'auto' }}
      // A table wider than its place scrolls: the keyboard reaches the scroll too (a focusable, named group).
      {...(scrolls
        ? {
            tabIndex: 0,
            role: 'group',
            'aria-label': `${props.label ?? 'Table'}, scrolls sideways`,
          }
        : {})}
    >
      <table
        aria-label={props.label}
        style={{ width: '100%', borderCollapse: 'collapse', ...props.style }}
      >
        <thead>
          <tr style={{ textAlign: 'left' }}>
            {props.columns.map(c => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** Cells of a time ("4 minutes ago"): never wrapped. */
export const TIME_CELL: CSSProperties = { whiteSpace: 'nowrap' };
/** Cells of free text (messages, sources): wrapped, long tokens (ids, URLs) too, so the column can be narrow. */
export const TEXT_CELL: CSSProperties = { overflowWrap: 'anywhere' };

/**
 * A CamelCase word (condition types and reasons: `ControlPlaneMachinesUpToDate`) that may wrap between its words
 * only, so that a narrow column breaks it where a reader would.
 */
export function CamelCase({ text }: { text: string }) {
  const parts = text.split(/(?<=[a-z0-9])(?=[A-Z])/);
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </>
  );
}
