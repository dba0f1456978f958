"use client";

import { api } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Card, ConfirmButton } from "@/components/ui";
import type { MaintenanceBody } from "@/lib/runtime/inputs";

type MaintenanceAction = NonNullable<MaintenanceBody["action"]>;

const DONE: Record<MaintenanceAction, string> = {
  restart: "Restarted: the agent runs its repair at startup.",
  "factory-reset": "Factory reset done: the agent runs the known-good runtime version again.",
};

/**
 * Restart and factory reset (`POST /api/runtime/maintenance`), each behind a confirmation; like the deployment
 * card's controls, they are shown only while runtime controls are on (the API answers 503 otherwise).
 */
export function MaintenanceCard({
  controlsEnabled,
  onDone,
}: {
  controlsEnabled: boolean | null;
  onDone: () => unknown;
}) {
  const action = useAction({ after: onDone });
  const run = (maintenance: MaintenanceAction) =>
    action.run(async () => {
      await api("/api/runtime/maintenance", { json: { action: maintenance } });
      return DONE[maintenance];
    }, maintenance);

  return (
    <Card
      title="Maintenance"
      testId="agent-maintenance"
      description="When the agent misbehaves: restart it, or reset it to the known-good runtime version."
    >
      {controlsEnabled ? (
        <div className="actions">
          <ConfirmButton
            variant="primary"
            question="Restart the agent? It is unavailable for a moment."
            confirmLabel="Restart now"
            onConfirm={() => run("restart")}
            disabled={action.busy}
            busy={action.running === "restart"}
          >
            Restart agent
          </ConfirmButton>
          <ConfirmButton
            question="Factory reset? The runtime version and its settings are set back; the agent restarts."
            confirmLabel="Reset the agent"
            onConfirm={() => run("factory-reset")}
            disabled={action.busy}
            busy={action.running === "factory-reset"}
          >
            Factory reset…
          </ConfirmButton>
        </div>
      ) : null}
      {controlsEnabled === false ? (
        <p className="hint">Runtime controls are turned off on this platform.</p>
      ) : null}
      <ActionStatus action={action} />
    </Card>
  );
}
