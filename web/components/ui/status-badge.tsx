import type { ReactNode } from "react";

export type Tone = "ok" | "warn" | "bad" | "info" | "neutral";

/** The tone of common status words (job, agent, approval states); anything else is neutral. */
export function toneOf(status: string): Tone {
  if (/^(running|healthy|completed|approved|active|ok|open|enabled|succeeded)$/.test(status)) return "ok";
  if (/^(queued|starting|pending|setup|deploying|retrying|connecting|reconnecting)$/.test(status))
    return "warn";
  if (/^(failed|unhealthy|unreachable|rejected|error|denied|expired|closed)$/.test(status)) return "bad";
  if (/^(stopped|disabled|off|cancelled|no_agent)$/.test(status)) return "neutral";
  return "info";
}

/** A small coloured label for a status; the text says the status, the colour only repeats it. */
export function StatusBadge({
  status,
  tone,
  children,
  testId,
}: {
  status: string;
  tone?: Tone;
  children?: ReactNode;
  testId?: string;
}) {
  return (
    <span className={`badge badge-${tone ?? toneOf(status)}`} data-testid={testId}>
      <span className="badge-dot" aria-hidden="true" />
      {children ?? status}
    </span>
  );
}
