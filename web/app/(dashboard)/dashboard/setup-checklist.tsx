import { Card, StatusBadge, type Tone } from "@/components/ui";
import type { CapabilityDetail, CapabilityState, SetupStatus, SetupVariable } from "@/lib/setup/inputs";
import styles from "./overview.module.css";

const STATE_WORDS: Record<CapabilityState, { label: string; tone: Tone }> = {
  ready: { label: "Ready", tone: "ok" },
  attention: { label: "Needs attention", tone: "warn" },
  off: { label: "Not configured", tone: "bad" },
  unknown: { label: "Not checked", tone: "neutral" },
};

function Variables({ variables }: { variables: SetupVariable[] }) {
  return (
    <ul className={styles.variables}>
      {variables.map((v) => (
        <li key={v.name}>
          <code>{v.name}</code> <span className="muted">({v.service})</span>{" "}
          {v.isSet === null ? null : (
            <StatusBadge
              status={v.isSet ? "set" : "unset"}
              tone={v.isSet ? "ok" : v.required ? "bad" : "neutral"}
            >
              {v.isSet ? "set" : v.required ? "not set" : "not set (optional)"}
            </StatusBadge>
          )}
          <span className={styles.meaning}>
            {v.meaning}
            {v.value ? (
              <>
                {" "}
                — now <code>{v.value}</code>
              </>
            ) : null}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** "Variables", with how many the capability needs and lacks. */
function variablesLabel(variables: SetupVariable[]): string {
  const unset = variables.filter((v) => v.required && v.isSet === false).length;
  return unset === 0 ? "Variables" : `Variables (${unset} required not set)`;
}

function CapabilityItem({ capability: c }: { capability: CapabilityDetail }) {
  const state = STATE_WORDS[c.state];
  const todo = c.state !== "ready";
  return (
    <li className={styles.capability} data-testid={`setup-${c.id}`}>
      <div className={styles.capabilityHead}>
        <h3>{c.name}</h3>
        <StatusBadge status={c.state} tone={state.tone} testId={`setup-${c.id}-state`}>
          {state.label}
        </StatusBadge>
      </div>
      <p>{c.summary}</p>
      {c.action ? <p>{c.action}</p> : null}
      {c.command ? (
        <pre className={styles.command}>
          <code>{c.command}</code>
        </pre>
      ) : null}
      {c.variables.length > 0 ? (
        <details className={styles.details}>
          <summary>{variablesLabel(c.variables)}</summary>
          <Variables variables={c.variables} />
        </details>
      ) : null}
      {todo && (c.action || c.command) ? (
        <p className="hint">
          {c.restartNeeded ? "Restart the platform after the change." : "No restart needed."}
        </p>
      ) : null}
    </li>
  );
}

/**
 * The Overview's view of what this server can do: for an admin every capability with its state and what to
 * set (`GET /api/setup`); for a user only what is unavailable, in plain words (nothing when all is).
 */
export function SetupChecklist({ setup }: { setup: SetupStatus }) {
  if (setup.role === "admin" && setup.capabilities) {
    const ready = setup.capabilities.filter((c) => c.state === "ready").length;
    return (
      <div id="setup">
        <Card
          title="Setup checklist"
          testId="setup-checklist"
          description={`${ready} of ${setup.capabilities.length} ready. Only administrators see this list.`}
        >
          <p className="hint">{setup.where}</p>
          <ul className={styles.checklist}>
            {setup.capabilities.map((c) => (
              <CapabilityItem key={c.id} capability={c} />
            ))}
          </ul>
        </Card>
      </div>
    );
  }
  if (setup.unavailable.length === 0) return null;
  return (
    <div id="setup">
      <Card
        title="Not available on this server"
        testId="setup-unavailable"
        description="What its administrator has not set up yet."
      >
        <ul className={styles.unavailable}>
          {setup.unavailable.map((u) => (
            <li key={u.capability}>{u.message}</li>
          ))}
        </ul>
      </Card>
    </div>
  );
}
