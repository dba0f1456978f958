"use client";

import { useEffect, useRef, useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Button, Field } from "@/components/ui";
import { MAX_AGENT_NAME_LENGTH } from "@/lib/agents/inputs";

/**
 * The agent's name as a fact of the Deployment card (`<div>` of a `<dl>`), with Rename: the name becomes a
 * field (`PATCH /api/agents/{agentId}`) until it is saved or the change is cancelled.
 */
export function AgentName({
  agentId,
  name,
  onRenamed,
}: {
  agentId: string;
  name: string | undefined;
  onRenamed: () => unknown;
}) {
  const [editing, setEditing] = useState(false);
  // Every refusal is about the name.
  const action = useAction({ fields: () => "renameAgent" });
  const [saved, setSaved] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const shown = saved ?? name ?? agentId;

  useEffect(() => {
    if (editing) input.current?.focus();
  }, [editing]);

  async function save(data: FormData) {
    const { agent } = await api<{ agent: { name: string } }>(`/api/agents/${encodeURIComponent(agentId)}`, {
      method: "PATCH",
      json: { name: String(data.get("renameAgent") ?? "") },
    });
    setSaved(agent.name);
    setEditing(false);
    await onRenamed();
    // The page has read the name again: it is the one to show from now on.
    setSaved(null);
  }

  return (
    <div>
      <dt>Name</dt>
      <dd data-testid="agent-name">
        {editing ? (
          <ActionForm
            action={action}
            label="Rename your agent"
            onSubmit={save}
            submit="Save name"
            busyLabel="Saving…"
            size="sm"
            buttonRow
            buttons={
              <Button size="sm" variant="secondary" onClick={() => setEditing(false)}>
                Cancel
              </Button>
            }
          >
            <Field
              ref={input}
              label="New name"
              name="renameAgent"
              required
              maxLength={MAX_AGENT_NAME_LENGTH}
              defaultValue={shown}
              error={action.fieldErrors.renameAgent}
            />
          </ActionForm>
        ) : (
          <>
            <strong>{shown}</strong>{" "}
            <Button size="sm" variant="ghost" aria-label="Rename your agent" onClick={() => setEditing(true)}>
              Rename
            </Button>
          </>
        )}
      </dd>
    </div>
  );
}
