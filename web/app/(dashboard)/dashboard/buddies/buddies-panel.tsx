"use client";

import { api, useResource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Button, Card, ConfirmButton, EmptyState, Field, SelectField } from "@/components/ui";
import type { BuddyView } from "@/lib/buddies/inputs";

/** The five kinds; typed against the schema's enum. */
const BUDDY_TYPES: readonly BuddyView["type"][] = ["crab", "robot", "ghost", "dragon", "alien"];
type Action = "feed" | "play" | "train";

/** The caller's buddies with their stats and actions, and the hatch form. */
export function BuddiesPanel() {
  const buddies = useResource<{ buddies: BuddyView[] }>("/api/buddies");
  const action = useAction({ fields: ["name", "type"] });

  async function hatch(data: FormData, form: HTMLFormElement) {
    const { buddy } = await api<{ buddy: BuddyView }>("/api/buddies", {
      json: { name: String(data.get("buddy-name") ?? ""), type: String(data.get("buddy-type") ?? "") },
    });
    form.reset();
    await buddies.reload();
    return `${buddy.name} hatched.`;
  }

  /** A change of one buddy (`PATCH /api/buddies/{id}`), then the list read again. */
  async function change(buddy: BuddyView, json: { action: Action } | { action: "rename"; newName: string }) {
    const result = await api<{ buddy: BuddyView; leveledUp?: boolean }>(
      `/api/buddies/${encodeURIComponent(buddy.id)}`,
      { method: "PATCH", json },
    );
    await buddies.reload();
    return result;
  }

  const act = (buddy: BuddyView, kind: Action) =>
    action.run(async () => {
      const result = await change(buddy, { action: kind });
      return result.leveledUp
        ? `${result.buddy.name} reached level ${result.buddy.level}!`
        : `${result.buddy.name}: ${kind} done.`;
    }, buddy.id);

  const rename = (buddy: BuddyView) =>
    action.onSubmit(async (data, form) => {
      const result = await change(buddy, {
        action: "rename",
        newName: String(data.get(`rename-${buddy.id}`) ?? ""),
      });
      form.reset();
      return `${buddy.name} is now called ${result.buddy.name}.`;
    }, buddy.id);

  const remove = (buddy: BuddyView) =>
    action.run(async () => {
      await api(`/api/buddies/${encodeURIComponent(buddy.id)}`, { method: "DELETE" });
      await buddies.reload();
      return `${buddy.name} was deleted.`;
    }, buddy.id);

  const list = buddies.data?.buddies ?? [];
  return (
    <>
      <Card
        title="Hatch a buddy"
        testId="hatch-card"
        description={buddies.data ? `You have ${list.length} of 20 buddies.` : undefined}
      >
        <ActionForm
          action={action}
          label="Hatch a buddy"
          onSubmit={hatch}
          className="inline"
          submit="Hatch"
          loadError={buddies.error}
        >
          <Field label="Name" name="buddy-name" required maxLength={30} error={action.fieldErrors.name} />
          <SelectField label="Kind" name="buddy-type" defaultValue="crab" error={action.fieldErrors.type}>
            {BUDDY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </SelectField>
        </ActionForm>
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
              onSubmit={rename(buddy)}
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
