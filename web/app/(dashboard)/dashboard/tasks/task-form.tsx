"use client";

import { useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Button, Field, formatDate, SelectField, TextAreaField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import { cronHint } from "@/lib/scheduled-tasks/cron-hint";
import type { ScheduledTaskView } from "@/lib/scheduled-tasks/inputs";

const FIELDS = ["name", "cronSchedule", "prompt", "description", "agentId"] as const;

/** The schedule in words and its next runs, or why it is refused (as the API would say it). */
function scheduleHint(schedule: string): string {
  const hint = cronHint(schedule, new Date());
  if (hint.problem) return hint.problem;
  if (hint.next.length === 0)
    return "5 fields (minute hour day month weekday) or 6 with seconds first, in UTC. Example: 30 9 * * 1-5";
  const words = hint.words ? `Runs ${hint.words}. ` : "";
  return `${words}Next: ${hint.next.map((at) => formatDate(at, { zone: true })).join("; ")}.`;
}

/**
 * Creates a task (no `task`) or edits one; the schedule's next runs are shown as it is typed. One form is on
 * the page at a time (its field ids are the field names).
 */
export function TaskForm({
  agents,
  task,
  onSaved,
  onCancel,
  disabled = false,
}: {
  agents: AgentChoice[];
  task?: ScheduledTaskView;
  /** The form cannot be sent (the page says why). */
  disabled?: boolean;
  onSaved: (task: ScheduledTaskView) => unknown;
  onCancel?: () => void;
}) {
  const [schedule, setSchedule] = useState(task?.cronSchedule ?? "");
  const action = useAction({ fields: FIELDS });
  const errors = action.fieldErrors;

  async function submit(data: FormData, form: HTMLFormElement) {
    const text = (name: string) => String(data.get(name) ?? "");
    const body = {
      name: text("name"),
      cronSchedule: text("cronSchedule"),
      prompt: text("prompt"),
      description: text("description").trim() === "" ? null : text("description"),
      enabled: data.get("enabled") === "on",
    };
    const saved = task
      ? await api<ScheduledTaskView>("/api/scheduled-tasks", {
          method: "PUT",
          json: { taskId: task.id, ...body },
        })
      : await api<ScheduledTaskView>("/api/scheduled-tasks", {
          json: { ...body, agentId: text("agentId") },
        });
    if (!task) {
      form.reset();
      setSchedule("");
    }
    await onSaved(saved);
  }

  return (
    <ActionForm
      action={action}
      label={task ? `Edit task ${task.name}` : "Create a scheduled task"}
      onSubmit={submit}
      submit={task ? "Save changes" : "Create task"}
      busyLabel="Saving…"
      disabled={disabled}
      buttonRow
      buttons={
        onCancel ? (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        ) : null
      }
    >
      <Field
        label="Name"
        name="name"
        required
        maxLength={200}
        defaultValue={task?.name}
        error={errors.name}
      />
      {task ? null : (
        <SelectField
          label="Agent"
          name="agentId"
          required
          error={errors.agentId}
          defaultValue={agents[0]?.id}
        >
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </SelectField>
      )}
      <Field
        label="Schedule (cron, UTC)"
        name="cronSchedule"
        required
        placeholder="30 9 * * 1-5"
        value={schedule}
        onChange={(event) => setSchedule(event.currentTarget.value)}
        hint={scheduleHint(schedule)}
        error={errors.cronSchedule}
        autoComplete="off"
        spellCheck={false}
      />
      <TextAreaField
        label="Prompt"
        name="prompt"
        required
        rows={3}
        defaultValue={task?.prompt}
        error={errors.prompt}
      />
      <Field
        label="Description (optional)"
        name="description"
        maxLength={2_000}
        defaultValue={task?.description ?? ""}
        error={errors.description}
      />
      <div className="field">
        <label style={{ display: "flex", alignItems: "center", gap: "0.5rem" }}>
          <input
            type="checkbox"
            name="enabled"
            defaultChecked={task?.enabled ?? true}
            style={{ minHeight: 0, width: "1rem", height: "1rem", margin: 0 }}
          />
          Enabled (runs on its schedule)
        </label>
      </div>
    </ActionForm>
  );
}
