"use client";

import { useAgentNames } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Alert, Button, Card, DateTime, EmptyState, Notice, PageHeader, StatusBadge } from "@/components/ui";
import type { PermissionDecision } from "@/lib/permissions/inputs";
import styles from "./approvals.module.css";
import { LiveConnection } from "./live-status";
import { type PendingRow, usePendingPermissions } from "./use-pending-permissions";

const DECISIONS: Array<{
  decision: PermissionDecision;
  label: string;
  variant: "primary" | "secondary" | "danger";
}> = [
  { decision: "approve", label: "Approve", variant: "primary" },
  { decision: "approve_always", label: "Approve always", variant: "secondary" },
  { decision: "reject", label: "Reject", variant: "danger" },
];

/** What the agent wants to run: the command of a shell tool, else the tool's input as JSON. */
function inputOf(row: PendingRow): string {
  const { command } = row.toolInput;
  if (typeof command === "string" && Object.keys(row.toolInput).length === 1) return command;
  return JSON.stringify(row.toolInput, null, 2);
}

function RequestCard({
  row,
  agentName,
  onDecide,
}: {
  row: PendingRow;
  agentName: (agentId: string) => string;
  onDecide: (decision: PermissionDecision) => Promise<void>;
}) {
  // A decided request leaves the list (its card with it): only a refusal is shown here.
  const action = useAction();
  const tool = row.toolName || "tool call";
  return (
    <li className={styles.request} data-testid="permission-request" data-request-id={row.id}>
      <Card
        title={`${tool} call`}
        description={
          <>
            <StatusBadge status={row.tier} tone={row.tier === "destructive" ? "bad" : "warn"} />{" "}
            <span>{row.reason}</span>
          </>
        }
      >
        <dl className="facts">
          <div>
            <dt>Agent</dt>
            <dd data-testid="permission-agent">{agentName(row.agentId)}</dd>
          </div>
          <div>
            <dt>Asked</dt>
            <dd>
              <DateTime value={row.timestamp} />
            </dd>
          </div>
        </dl>
        <p className={styles.inputLabel}>
          {row.toolName === "bash" || row.toolName === "exec" || row.toolName === "shell" || !row.toolName
            ? "Command"
            : "Tool input"}
        </p>
        <pre className={styles.input} data-testid="permission-input">
          {inputOf(row)}
        </pre>
        <div className="actions">
          {DECISIONS.map(({ decision, label, variant }) => (
            <Button
              key={decision}
              variant={variant}
              size="sm"
              busy={action.running === decision}
              disabled={action.busy}
              onClick={() => void action.run(() => onDecide(decision), decision)}
              aria-label={`${label}: ${inputOf(row).slice(0, 80)}`}
            >
              {label}
            </Button>
          ))}
        </div>
        <ActionStatus action={action} />
      </Card>
    </li>
  );
}

/** Pending permission requests of the user's agents, live, with Approve / Approve always / Reject. */
export function ApprovalsView() {
  const { rows, more, error, notice, status, decide } = usePendingPermissions();
  const { nameOf } = useAgentNames();
  const count = rows?.length ?? 0;
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Your agents ask before they run anything risky. Decide here; the agent waits for you."
      />
      <LiveConnection status={status} testId="approvals-live" />
      <Alert message={error} />
      <Notice testId="approvals-notice">{notice}</Notice>
      <p className="sr-only" aria-live="polite" data-testid="approvals-count">
        {rows === undefined ? "" : `${count} pending ${count === 1 ? "request" : "requests"}`}
      </p>
      {rows === undefined ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <EmptyState title="Nothing waiting for you">
          When an agent wants to run something dangerous, the request appears here at once.
        </EmptyState>
      ) : (
        <ul className={styles.list} aria-label="Pending requests">
          {rows.map((row) => (
            <RequestCard
              key={row.id}
              row={row}
              agentName={nameOf}
              onDecide={(decision) => decide(row.id, decision)}
            />
          ))}
        </ul>
      )}
      {more ? (
        <p className="muted">Showing the oldest 100 pending requests; decide these to see more.</p>
      ) : null}
    </>
  );
}
