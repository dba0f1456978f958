"use client";

import { api, useResource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Button, Card, SelectField, StatusBadge } from "@/components/ui";
import type { HeartbeatSettings } from "@/lib/heartbeat/service";

/** The frequencies offered; the API takes any whole minutes or hours from 1m to 24h. */
const FREQUENCIES = [
  ["5m", "Every 5 minutes"],
  ["15m", "Every 15 minutes"],
  ["30m", "Every 30 minutes"],
  ["1h", "Every hour"],
  ["2h", "Every 2 hours"],
  ["6h", "Every 6 hours"],
  ["12h", "Every 12 hours"],
  ["24h", "Once a day"],
] as const;

const SOURCE_TEXT = {
  gateway: "read from the agent's gateway",
  db: "stored by the platform (the agent's gateway is not reachable)",
};

/**
 * The agent's heartbeat (`/api/heartbeat?agentId=`): how often it wakes up on its own; change the
 * frequency, or turn it off.
 */
export function HeartbeatCard({ agentId }: { agentId: string }) {
  const path = `/api/heartbeat?agentId=${encodeURIComponent(agentId)}`;
  const heartbeat = useResource<HeartbeatSettings>(path);
  const action = useAction();
  const h = heartbeat.data;
  const current = h?.frequency ?? "30m";
  const offered = FREQUENCIES.some(([value]) => value === current)
    ? FREQUENCIES
    : [...FREQUENCIES, [current, `Every ${current}`] as const];

  async function save(enabled: boolean, frequency: string) {
    await api(path, { method: "PUT", json: { enabled, frequency } });
    await heartbeat.reload();
    return enabled ? `Heartbeat set to every ${frequency}.` : "Heartbeat turned off.";
  }

  return (
    <Card
      title="Heartbeat"
      testId="agent-heartbeat"
      description="How often the agent wakes up on its own to check on its work."
    >
      {heartbeat.loading ? <p className="muted">Loading…</p> : null}
      {h ? (
        <p data-testid="heartbeat-state">
          {h.enabled ? (
            <>
              <StatusBadge status="on" tone="ok">
                on
              </StatusBadge>{" "}
              every {h.frequency ?? "(no interval set)"}
            </>
          ) : (
            <StatusBadge status="off" tone="neutral">
              off
            </StatusBadge>
          )}{" "}
          <span className="muted">· {SOURCE_TEXT[h.source]}</span>
        </p>
      ) : null}
      <ActionForm
        action={action}
        label="Heartbeat frequency"
        onSubmit={(data) => save(true, String(data.get("heartbeatFrequency")))}
        className="inline"
        submit={h?.enabled ? "Save" : "Turn on"}
        buttons={
          h?.enabled ? (
            <Button
              variant="secondary"
              disabled={action.busy}
              onClick={() => action.run(() => save(false, current))}
            >
              Turn off
            </Button>
          ) : null
        }
        replacedBy={h ? undefined : null}
        loadError={heartbeat.error}
      >
        {/* key: the select starts from the stored value each time it changes */}
        <SelectField key={current} label="Frequency" name="heartbeatFrequency" defaultValue={current}>
          {offered.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
      </ActionForm>
    </Card>
  );
}
