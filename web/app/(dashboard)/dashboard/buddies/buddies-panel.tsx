"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, ConfirmButton, EmptyState, Field, Notice, SelectField } from "@/components/ui";
import type { BuddyView } from "@/lib/buddies/inputs";

/** The five kinds; typed against the schema's enum. */
const BUDDY_TYPES: readonly BuddyView["type"][] = ["crab", "robot", "ghost", "dragon", "alien"];
type Action = "feed" | "play" | "train";

/** The caller's buddies with their stats and actions, and the hatch form. */
export function BuddiesPanel() {
  const buddies = useResource<{ buddies: BuddyView[] }>("/api/buddies");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");

  async function hatch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setFieldErrors({});
    setError("");
    setStatus("");
    try {
      const { buddy } = await api<{ buddy: BuddyView }>("/api/buddies", {
        json: { name: String(data.get("buddy-name") ?? ""), type: String(data.get("buddy-type") ?? "") },
      });
      form.reset();
      setStatus(`${buddy.name} hatched.`);
      await buddies.reload();
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, ["name", "type"]);
      if (field) setFieldErrors({ [field]: message });
      else setError(message);
    }
  }

  async function act(buddy: BuddyView, action: Action) {
    setError("");
    setStatus("");
    try {
      const result = await api<{ buddy: BuddyView; leveledUp: boolean }>(
        `/api/buddies/${encodeURIComponent(buddy.id)}`,
        { method: "PATCH", json: { action } },
      );
      setStatus(
        result.leveledUp
          ? `${result.buddy.name} reached level ${result.buddy.level}!`
          : `${result.buddy.name}: ${action} done.`,
      );
      await buddies.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  async function rename(buddy: BuddyView, event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const newName = String(new FormData(form).get(`rename-${buddy.id}`) ?? "");
    setError("");
    setStatus("");
    try {
      const result = await api<{ buddy: BuddyView }>(`/api/buddies/${encodeURIComponent(buddy.id)}`, {
        method: "PATCH",
        json: { action: "rename", newName },
      });
      form.reset();
      setStatus(`${buddy.name} is now called ${result.buddy.name}.`);
      await buddies.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  async function remove(buddy: BuddyView) {
    setError("");
    setStatus("");
    try {
      await api(`/api/buddies/${encodeURIComponent(buddy.id)}`, { method: "DELETE" });
      setStatus(`${buddy.name} was deleted.`);
      await buddies.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  const list = buddies.data?.buddies ?? [];
  return (
    <>
      <Card
        title="Hatch a buddy"
        testId="hatch-card"
        description={buddies.data ? `You have ${list.length} of 20 buddies.` : undefined}
      >
        <form method="post" onSubmit={hatch} className="inline" aria-label="Hatch a buddy">
          <Field label="Name" name="buddy-name" required maxLength={30} error={fieldErrors.name} />
          <SelectField label="Kind" name="buddy-type" defaultValue="crab" error={fieldErrors.type}>
            {BUDDY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </SelectField>
          <Button type="submit">Hatch</Button>
        </form>
        <Notice tone="success">{status}</Notice>
        <Alert message={error || (buddies.error ? messageOf(buddies.error) : "")} />
      </Card>
      {buddies.data && list.length === 0 ? (
        <EmptyState title="No buddies yet">Hatch your first one above.</EmptyState>
      ) : null}
      <div className="grid" data-testid="buddies">
        {list.map((buddy) => (
          <Card
            key={buddy.id}
            title={buddy.name}
            testId={`buddy-${buddy.name}`}
            description={`A level ${buddy.level} ${buddy.type}`}
          >
            <dl className="facts">
              <div>
                <dt>Level</dt>
                <dd data-testid="level">{buddy.level}</dd>
              </div>
              <div>
                <dt>XP</dt>
                <dd data-testid="xp">{buddy.xp}</dd>
              </div>
              <div>
                <dt>Energy</dt>
                <dd data-testid="energy">{buddy.energy} / 100</dd>
              </div>
              <div>
                <dt>Happiness</dt>
                <dd data-testid="happiness">{buddy.happiness} / 100</dd>
              </div>
            </dl>
            <div className="actions">
              <Button size="sm" aria-label={`Feed ${buddy.name}`} onClick={() => act(buddy, "feed")}>
                Feed
              </Button>
              <Button
                size="sm"
                variant="secondary"
                aria-label={`Play with ${buddy.name}`}
                onClick={() => act(buddy, "play")}
              >
                Play
              </Button>
              <Button
                size="sm"
                variant="secondary"
                aria-label={`Train ${buddy.name}`}
                disabled={buddy.energy < 30}
                title={buddy.energy < 30 ? "Training needs at least 30 energy" : undefined}
                onClick={() => act(buddy, "train")}
              >
                Train
              </Button>
              <ConfirmButton
                size="sm"
                aria-label={`Delete ${buddy.name}`}
                question={`Delete ${buddy.name}? This cannot be undone.`}
                confirmLabel="Delete buddy"
                onConfirm={() => remove(buddy)}
              >
                Delete
              </ConfirmButton>
            </div>
            <form
              method="post"
              onSubmit={(event) => rename(buddy, event)}
              className="inline"
              aria-label={`Rename ${buddy.name}`}
            >
              <Field
                label={`New name for ${buddy.name}`}
                name={`rename-${buddy.id}`}
                required
                maxLength={30}
              />
              <Button type="submit" size="sm" variant="secondary">
                Rename
              </Button>
            </form>
          </Card>
        ))}
      </div>
    </>
  );
}
