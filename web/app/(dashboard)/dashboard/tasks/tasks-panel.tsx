"use client";

import { useEffect, useState } from "react";
import { api, usePolling, useResource } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Card, EmptyState, formatDate, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { ScheduledTaskView, TaskList } from "@/lib/scheduled-tasks/inputs";
import { TaskForm } from "./task-form";
import { TaskItem } from "./task-item";
import styles from "./tasks.module.css";

/** The list refreshes this often while the page is visible (the scheduler changes states meanwhile). */
const REFRESH_MS = 15_000;

/**
 * The user's scheduled tasks: filtered by agent, created and edited in one form (the schedule's next runs
 * shown as it is typed), enabled or disabled, deleted after a confirmation; each with one state badge, its
 * next run, how its last run went and, when it failed, the error in words (the raw answer behind a toggle).
 */
export function TasksPanel({
  agents,
  createDisabled = false,
}: {
  agents: AgentChoice[];
  /** No new task can run on this server (no AI provider): the new-task form cannot be sent. */
  createDisabled?: boolean;
}) {
  const [agentId, setAgentId] = useState("");
  const tasks = useResource<TaskList>(
    `/api/scheduled-tasks${agentId ? `?agentId=${encodeURIComponent(agentId)}` : ""}`,
  );
  usePolling(() => tasks.reload(), REFRESH_MS);
  const [editing, setEditing] = useState<ScheduledTaskView | null>(null);
  const action = useAction();
  // Editing moves the keyboard focus to the form (it sits below the table).
  useEffect(() => {
    if (editing) document.getElementById("name")?.focus();
  }, [editing]);
  const agentName = (id: string) => agents.find((a) => a.id === id)?.name ?? id;

  /** Says what became of the task and reads the list again; the form, if it was this task's, closes. */
  async function saved(task: ScheduledTaskView, verb: string) {
    setEditing(null);
    await tasks.reload();
    return `Task "${task.name}" ${verb}. Next run: ${task.enabled ? formatDate(task.nextRun, { zone: true }) : "none (disabled)"}.`;
  }

  const toggle = (task: ScheduledTaskView) =>
    action.run(async () => {
      const next = await api<ScheduledTaskView>("/api/scheduled-tasks", {
        method: "PUT",
        json: { taskId: task.id, enabled: !task.enabled },
      });
      return saved(next, next.enabled ? "enabled" : "disabled");
    }, task.id);

  const remove = (task: ScheduledTaskView) =>
    action.run(async () => {
      await api("/api/scheduled-tasks", { method: "DELETE", json: { taskId: task.id } });
      if (editing?.id === task.id) setEditing(null);
      await tasks.reload();
      return `Task "${task.name}" deleted.`;
    }, task.id);

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
          tasks.data.tasks.length === 0 ? (
            <div data-testid="tasks">
              <EmptyState title="No scheduled tasks">Create one below.</EmptyState>
            </div>
          ) : (
            <ul className={styles.list} data-testid="tasks" aria-label="Your scheduled tasks">
              {tasks.data.tasks.map((t) => (
                <TaskItem
                  key={t.id}
                  task={t}
                  agentName={agentName(t.agentId)}
                  onEdit={() => setEditing(t)}
                  onToggle={() => toggle(t)}
                  onDelete={() => remove(t)}
                />
              ))}
            </ul>
          )
        ) : null}
        <ActionStatus action={action} tone="info" loadError={tasks.error} />
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
          disabled={createDisabled && !editing}
          onSaved={(task) => action.run(() => saved(task, editing ? "saved" : "created"), task.id)}
          onCancel={editing ? () => setEditing(null) : undefined}
        />
      </Card>
    </>
  );
}
