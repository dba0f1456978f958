import type { LiveStatus } from "@/components/data";
import { StatusBadge } from "@/components/ui";
import styles from "./approvals.module.css";

/** What the page says about its live connection; announced politely when it changes. */
export function LiveConnection({ status, testId }: { status: LiveStatus; testId?: string }) {
  const text =
    status === "open"
      ? "Live: new requests appear as they arrive."
      : status === "connecting"
        ? "Connecting to live updates…"
        : "Live updates are disconnected; reconnecting. Meanwhile the list is refreshed every few seconds.";
  return (
    <p className={styles.live} role="status" aria-live="polite" data-testid={testId}>
      <StatusBadge status={status === "open" ? "open" : status}>
        {status === "open" ? "live" : status === "connecting" ? "connecting" : "reconnecting"}
      </StatusBadge>
      <span>{text}</span>
    </p>
  );
}
