import type { CSSProperties, ReactNode } from 'react';

/** A plain data table: the header row from `columns`, the body rows as given (each table styles its own cells). */
export function SimpleTable(props: {
  label?: string;
  columns: string[];
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
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
  );
}
