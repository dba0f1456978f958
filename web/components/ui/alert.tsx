import type { ReactNode } from "react";

/**
 * An error line's class. Its first letter is shown capitalised, unless the message opens with a quotation
 * (“notes.pdf” (48 KB) is bigger than…): a quoted name stays as it is written.
 */
export function errorClass(message: ReactNode): string {
  return typeof message === "string" && /^[“"‘']/.test(message) ? "error as-written" : "error";
}

/** An error line, announced to screen readers at once; nothing when there is no message. */
export function Alert({ message, children }: { message?: string | null; children?: ReactNode }) {
  const content = children ?? message;
  return content ? (
    <p className={errorClass(content)} role="alert">
      {content}
    </p>
  ) : null;
}

/** The older name of Alert (forms pass `message`). */
export const ErrorAlert = Alert;

/** A quiet status message (saved, created, …), announced politely; `tone` colours its edge. */
export function Notice({
  children,
  tone = "info",
  testId,
}: {
  children?: ReactNode;
  tone?: "info" | "success" | "warning";
  testId?: string;
}) {
  return children ? (
    <div className={`notice notice-${tone}`} role="status" data-testid={testId}>
      {children}
    </div>
  ) : null;
}
