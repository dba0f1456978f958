import type { ReactNode } from "react";

/** A list row's secondary action (Delete, Remove); `label` says what it acts on for screen readers. */
export function RowButton({
  label,
  onClick,
  children,
}: {
  label: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button type="button" className="secondary" onClick={onClick} aria-label={label}>
      {children}
    </button>
  );
}
