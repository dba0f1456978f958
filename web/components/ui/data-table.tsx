import type { ReactNode } from "react";

export interface Column<Row> {
  /** The column's header text. */
  header: string;
  cell: (row: Row) => ReactNode;
  /** Right-aligned numbers, or a narrow actions column. */
  align?: "start" | "end";
  /** Hidden below 640 px (secondary details). */
  hideOnNarrow?: boolean;
}

/**
 * A table with a caption (visible or for screen readers only), column headers, and an empty state in
 * place of the table when there are no rows. Scrolls sideways inside its card on narrow screens.
 */
export function DataTable<Row>({
  caption,
  captionHidden = false,
  columns,
  rows,
  rowKey,
  empty,
  testId,
}: {
  caption: string;
  captionHidden?: boolean;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  empty: ReactNode;
  testId?: string;
}) {
  if (rows.length === 0) return <div data-testid={testId}>{empty}</div>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section className="table-wrap" tabIndex={0} aria-label={caption}>
      <table className="table" data-testid={testId}>
        <caption className={captionHidden ? "sr-only" : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.header}
                scope="col"
                className={
                  [c.align === "end" ? "end" : "", c.hideOnNarrow ? "wide-only" : ""].join(" ").trim() ||
                  undefined
                }
              >
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td
                  key={c.header}
                  className={
                    [c.align === "end" ? "end" : "", c.hideOnNarrow ? "wide-only" : ""].join(" ").trim() ||
                    undefined
                  }
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
