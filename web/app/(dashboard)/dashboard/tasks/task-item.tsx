"use client";

import { Button, ConfirmButton, DateTime, formatDate, StatusBadge } from "@/components/ui";
import { describeCron } from "@/lib/scheduled-tasks/cron-hint";
import type { ScheduledTaskView } from "@/lib/scheduled-tasks/inputs";
import { lastRunOutcome, taskBadge, taskErrorInWords } from "@/lib/scheduled-tasks/task-status";
import styles from "./tasks.module.css";

/** The last run in a sentence: not yet, when it succeeded, or which attempt failed and what comes next. */
function outcomeText(task: ScheduledTaskView): string {
  const outcome = lastRunOutcome(task);
  if (outcome.kind === "none") return "Not run yet.";
  if (outcome.kind === "succeeded") return `Last run succeeded at ${formatDate(outcome.at, { zone: true })}.`;
  if (outcome.gaveUp)
    return `Last run failed after ${outcome.attempts} ${outcome.attempts === 1 ? "attempt" : "attempts"}; it does not run again until you enable it.`;
  const attempt = outcome.attempts > 0 ? ` (attempt ${outcome.attempts} of ${outcome.maxAttempts})` : "";
  return `Last run failed${attempt}${outcome.retryAt ? `; next attempt at ${formatDate(outcome.retryAt, { zone: true })}` : ""}.`;
}

/** One task: its name and single state badge, its actions, then schedule, agent, runs and the last error. */
export function TaskItem({
  task,
  agentName,
  onEdit,
  onToggle,
  onDelete,
}: {
  task: ScheduledTaskView;
  agentName: string;
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => unknown;
}) {
  const badge = taskBadge(task);
  const words = describeCron(task.cronSchedule);
  const error = task.lastError ? taskErrorInWords(task.lastError) : null;
  return (
    <li className={styles.task} data-testid="task">
      <div className={styles.head}>
        <h3 className={`subheading ${styles.title}`}>
          <span>{task.name}</span>
          <span data-testid="task-state">
            <StatusBadge status={badge.word} tone={badge.tone} />
          </span>
        </h3>
        <div className="actions">
          <Button size="sm" variant="secondary" aria-label={`Edit task ${task.name}`} onClick={onEdit}>
            Edit
          </Button>
          <Button
            size="sm"
            variant="secondary"
            aria-label={`${task.enabled ? "Disable" : "Enable"} task ${task.name}`}
            onClick={onToggle}
          >
            {task.enabled ? "Disable" : "Enable"}
          </Button>
          <ConfirmButton
            size="sm"
            aria-label={`Delete task ${task.name}`}
            question={`Delete "${task.name}"? It will not run again.`}
            confirmLabel="Delete task"
            onConfirm={onDelete}
          >
            Delete
          </ConfirmButton>
        </div>
      </div>
      {task.description ? <p className="muted">{task.description}</p> : null}
      <dl className="facts">
        <div>
          <dt>Schedule</dt>
          <dd>
            {words ? <>{words} </> : null}
            <code className={styles.cron}>{task.cronSchedule}</code>
          </dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd>{agentName}</dd>
        </div>
        <div>
          <dt>Next run</dt>
          <dd data-testid="task-next-run">
            {/* A <time> with the moment itself, as every date of the dashboard is written. */}
            {task.enabled && task.status !== "failed" ? <DateTime value={task.nextRun} zone /> : "—"}
          </dd>
        </div>
      </dl>
      <p className={styles.outcome} data-testid="task-outcome">
        {outcomeText(task)}
      </p>
      {error ? (
        <>
          <p className={styles.error} data-testid="task-error">
            {error.summary}
          </p>
          {error.details ? (
            <details className={styles.details}>
              <summary>Details of the error</summary>
              <pre className={styles.raw}>{error.details}</pre>
            </details>
          ) : null}
        </>
      ) : null}
    </li>
  );
}
