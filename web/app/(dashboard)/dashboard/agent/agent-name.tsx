"use client";

import { type FormEvent, useEffect, useRef, useState } from "react";
import { api, messageOf } from "@/components/data";
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const shown = saved ?? name ?? agentId;

  useEffect(() => {
    if (editing) input.current?.focus();
  }, [editing]);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      const { agent } = await api<{ agent: { name: string } }>(`/api/agents/${encodeURIComponent(agentId)}`, {
        method: "PATCH",
        json: { name: String(new FormData(event.currentTarget).get("renameAgent") ?? "") },
      });
      setSaved(agent.name);
      setEditing(false);
      await onRenamed();
      // The page has read the name again: it is the one to show from now on.
      setSaved(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <dt>Name</dt>
      <dd data-testid="agent-name">
        {editing ? (
          <form method="post" onSubmit={save} aria-label="Rename your agent">
            <Field
              ref={input}
              label="New name"
              name="renameAgent"
              required
              maxLength={MAX_AGENT_NAME_LENGTH}
              defaultValue={shown}
              error={error}
            />
            <span className="actions">
              <Button type="submit" size="sm" busy={busy} busyLabel="Saving…">
                Save name
              </Button>
              <Button size="sm" variant="secondary" onClick={() => setEditing(false)}>
                Cancel
              </Button>
            </span>
          </form>
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
