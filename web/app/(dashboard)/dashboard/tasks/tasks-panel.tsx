"use client";

import { useEffect, useState } from "react";
import { api, messageOf, usePolling, useResource } from "@/components/data";
import {
  Alert,
  Button,
  Card,
  ConfirmButton,
  DataTable,
  DateTime,
  EmptyState,
  formatDate,
  Notice,
  SelectField,
  StatusBadge,
} from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import { describeCron } from "@/lib/tasks/cron-hint";
import type { ScheduledTaskView, TaskList } from "@/lib/tasks/schema";
import { TaskForm } from "./task-form";

/** The list refreshes this often while the page is visible (the scheduler changes states meanwhile). */
const REFRESH_MS = 15_000;

/**
 * The user's scheduled tasks: filtered by agent, created and edited in one form (the schedule's next runs
 * shown as it is typed), enabled or disabled, deleted after a confirmation; state, last and next run,
 * attempts and the last error in the table.
 */
export function TasksPanel({ agents }: { agents: AgentChoice[] }) {
  const [agentId, setAgentId] = useState("");
  const tasks = useResource<TaskList>(
    `/api/scheduled-tasks${agentId ? `?agentId=${encodeURIComponent(agentId)}` : ""}`,
  );
  usePolling(() => tasks.reload(), REFRESH_MS);
  const [editing, setEditing] = useState<ScheduledTaskView | null>(null);
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");
  // Editing moves the keyboard focus to the form (it sits below the table).
  useEffect(() => {
    if (editing) document.getElementById("name")?.focus();
  }, [editing]);
  const agentName = (id: string) => agents.find((a) => a.id === id)?.name ?? id;

  async function saved(task: ScheduledTaskView, verb: string) {
    setEditing(null);
    setError("");
    setStatus(
      `Task "${task.name}" ${verb}. Next run: ${task.enabled ? formatDate(task.nextRun, { zone: true }) : "none (disabled)"}.`,
    );
    await tasks.reload();
  }

  async function toggle(task: ScheduledTaskView) {
    setError("");
    try {
      const next = await api<ScheduledTaskView>("/api/scheduled-tasks", {
        method: "PUT",
        json: { taskId: task.id, enabled: !task.enabled },
      });
      await saved(next, next.enabled ? "enabled" : "disabled");
    } catch (err) {
      setError(messageOf(err));
    }
  }

  async function remove(task: ScheduledTaskView) {
    setError("");
    try {
      await api("/api/scheduled-tasks", { method: "DELETE", json: { taskId: task.id } });
      if (editing?.id === task.id) setEditing(null);
      setStatus(`Task "${task.name}" deleted.`);
      await tasks.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  if (agents.length === 0) {
    return (
      <Card title="Your tasks">
        <EmptyState title="No agent yet">
          A task sends its prompt to one of your agents. <a href="/dashboard/agent">Deploy an agent</a> first.
        </EmptyState>
      </Card>
    );
  }

  return (
    <>
      <Card
        title="Your tasks"
        testId="tasks-card"
        actions={
          <SelectField
            label="Show tasks of"
            name="agentFilter"
            value={agentId}
            onChange={(event) => setAgentId(event.currentTarget.value)}
          >
            <option value="">All agents</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </SelectField>
        }
      >
        {tasks.loading ? <p className="muted">Loading…</p> : null}
        {tasks.data ? (
          <DataTable
            caption="Your scheduled tasks"
            captionHidden
            testId="tasks"
            rows={tasks.data.tasks}
            rowKey={(t) => t.id}
            empty={<EmptyState title="No scheduled tasks">Create one below.</EmptyState>}
            columns={[
              {
                header: "Task",
                cell: (t) => (
                  <>
                    <strong>{t.name}</strong>
                    {t.description ? <div className="muted">{t.description}</div> : null}
                  </>
                ),
              },
              { header: "Agent", hideOnNarrow: true, cell: (t) => agentName(t.agentId) },
              {
                header: "Schedule",
                cell: (t) => (
                  <>
                    <code>{t.cronSchedule}</code>
                    {describeCron(t.cronSchedule) ? (
                      <div className="muted">{describeCron(t.cronSchedule)}</div>
                    ) : null}
                  </>
                ),
              },
              {
                header: "State",
                cell: (t) => (
                  <span data-testid="task-state">
                    <StatusBadge status={t.status} />{" "}
                    {t.enabled ? null : <StatusBadge status="disabled">disabled</StatusBadge>}
                  </span>
                ),
              },
              { header: "Last run", hideOnNarrow: true, cell: (t) => <DateTime value={t.lastRun} zone /> },
              {
                header: "Next run",
                cell: (t) => (
                  <span data-testid="task-next-run">
                    {t.enabled ? <DateTime value={t.nextRun} zone /> : "—"}
                  </span>
                ),
              },
              {
                header: "Attempts",
                hideOnNarrow: true,
                align: "end",
                cell: (t) => `${t.attempts} / ${t.maxAttempts}`,
              },
              { header: "Last error", hideOnNarrow: true, cell: (t) => t.lastError ?? "—" },
              {
                header: "Actions",
                align: "end",
                cell: (t) => (
                  <div
                    className="actions"
                    style={{ margin: 0, flexWrap: "nowrap", justifyContent: "flex-end" }}
                  >
                    <Button
                      size="sm"
                      variant="secondary"
                      aria-label={`Edit task ${t.name}`}
                      onClick={() => setEditing(t)}
                    >
                      Edit
                    </Button>
                    <Button
                      size="sm"
                      variant="secondary"
                      aria-label={`${t.enabled ? "Disable" : "Enable"} task ${t.name}`}
                      onClick={() => toggle(t)}
                    >
                      {t.enabled ? "Disable" : "Enable"}
                    </Button>
                    <ConfirmButton
                      size="sm"
                      aria-label={`Delete task ${t.name}`}
                      question={`Delete "${t.name}"? It will not run again.`}
                      confirmLabel="Delete task"
                      onConfirm={() => remove(t)}
                    >
                      Delete
                    </ConfirmButton>
                  </div>
                ),
              },
            ]}
          />
        ) : null}
        <Notice>{status}</Notice>
        <Alert message={error || (tasks.error ? messageOf(tasks.error) : "")} />
      </Card>
      <Card
        title={editing ? `Edit "${editing.name}"` : "New task"}
        testId="task-form-card"
        description={
          editing
            ? `On ${agentName(editing.agentId)}. A failed task you enable runs again from its schedule.`
            : "Its prompt is sent to the agent at every time of the schedule."
        }
      >
        <TaskForm
          key={editing?.id ?? "new"}
          agents={agents}
          task={editing ?? undefined}
          onSaved={(task) => saved(task, editing ? "saved" : "created")}
          onCancel={editing ? () => setEditing(null) : undefined}
        />
      </Card>
    </>
  );
}
