"use client";

import Link from "next/link";
import { api } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Alert, Button, Card, ConfirmButton, Field, formatDate, StatusBadge } from "@/components/ui";
import { MAX_AGENT_NAME_LENGTH } from "@/lib/agents/inputs";
import type { PlatformJob } from "@/lib/platform-jobs/inputs";
import { isRetrying, progressOf } from "../jobs/job-format";
import { AgentName } from "./agent-name";
import { type AgentRuntime, useDeployJob } from "./use-agent-runtime";

const ACTIONS = [
  { op: "start", label: "Start" },
  { op: "stop", label: "Stop" },
  { op: "restart", label: "Restart" },
  { op: "repair", label: "Repair" },
] as const;
type Action = (typeof ACTIONS)[number]["op"];

const STATUS_TEXT: Record<string, string> = {
  running: "Running",
  healthy: "Healthy",
  setup: "Running (setup not finished)",
  starting: "Starting",
  stopped: "Stopped",
  unhealthy: "Unhealthy",
  unreachable: "Unreachable",
};

/** Statuses whose reason ("/api/status: running true") tells the user nothing the word does not. */
const SELF_EXPLAINING = new Set(["running", "healthy", "stopped"]);

/**
 * The controls that make sense in each state: a live agent is stopped or restarted, not started again; a
 * stopped one is started (nothing runs to stop, restart or repair); repair is for an agent not working as
 * it should. A state the probe does not name keeps every control.
 */
const ALLOWED: Record<string, readonly Action[]> = {
  running: ["stop", "restart"],
  healthy: ["stop", "restart"],
  setup: ["stop", "restart", "repair"],
  starting: ["stop", "restart"],
  stopped: ["start"],
  unhealthy: ["stop", "restart", "repair"],
  unreachable: ["start", "stop", "restart", "repair"],
};

const WHY_OFF: Record<string, string> = {
  running: "The agent is running: Start and Repair are for an agent that is stopped or not working.",
  healthy: "The agent is running: Start and Repair are for an agent that is stopped or not working.",
  starting: "The agent is starting: wait for it, or stop or restart it.",
  stopped: "The agent is stopped: start it to run it again.",
  unhealthy: "The agent runs but does not answer as it should: restart or repair it.",
  setup: "The agent runs but its setup is not finished: repair it if it stays so.",
};

/** Where the deploy job is, in words: an attempt is "failed" only once it has failed. */
function deployText(job: PlatformJob): string {
  if (job.status === "failed")
    return `Failed after ${job.attempts} ${job.attempts === 1 ? "attempt" : "attempts"}${job.error ? `: ${job.error}` : ""}`;
  if (isRetrying(job))
    return `Attempt ${job.attempts} of ${job.maxAttempts} failed${job.error ? ` (${job.error})` : ""}; retry at ${formatDate(job.runAt, { style: "time" })}`;
  // A running attempt after a failed one keeps the failure's error until it ends.
  if (job.status === "running" && job.error && job.attempts > 1)
    return `${progressOf(job)}. Attempt ${job.attempts - 1} failed: ${job.error}`;
  return progressOf(job);
}

/**
 * The user's agent: deploy it (named as they choose), see its name, live status and version, redeploy it
 * after a confirmation, and start, stop, restart or repair it where its state calls for it.
 */
export function AgentPanel({ runtime, accountName }: { runtime: AgentRuntime; accountName: string }) {
  const { health, healthError, refreshHealth, version, controlsEnabled } = runtime;
  const { job, setJob, error: jobError } = useDeployJob(() => void refreshHealth());
  const action = useAction();
  const busy = action.running;

  /** Deploys the agent (again, without a name: a redeploy keeps it). */
  async function deploy(name?: string) {
    const result = await api<{ job: PlatformJob; agentId: string }>("/api/provision", {
      json: name ? { name } : {},
    });
    setJob(result.job);
  }

  async function act(op: Action, label: string) {
    await action.run(async () => {
      await api(`/api/runtime/${op}`, { method: "POST" });
      return `${label}: done.`;
    }, op);
    await refreshHealth();
  }

  const deployed = health !== null && health.status !== "no_agent";
  const deploying = job !== null && (job.status === "queued" || job.status === "running");
  const allowed = deployed ? (ALLOWED[health.status] ?? ACTIONS.map((a) => a.op)) : [];

  return (
    <Card
      title="Deployment"
      testId="agent-panel"
      description="Your agent's name, live status and version; deploy it, or start, stop, restart or repair it."
    >
      {health === null && !healthError ? (
        <p className="muted" aria-live="polite">
          Checking your agent…
        </p>
      ) : null}
      {health?.status === "no_agent" ? (
        <>
          <p data-testid="agent-none">You have no running agent yet.</p>
          <form
            method="post"
            onSubmit={action.onSubmit((data) => deploy(String(data.get("agentName") ?? "").trim()))}
            aria-label="Deploy your agent"
          >
            <Field
              label="Agent name"
              name="agentName"
              required
              maxLength={MAX_AGENT_NAME_LENGTH}
              defaultValue={(accountName ? `${accountName}'s agent` : "My agent").slice(
                0,
                MAX_AGENT_NAME_LENGTH,
              )}
              hint="How the dashboard names it; you can change it later."
            />
            <Button
              type="submit"
              disabled={busy !== null || deploying}
              busy={busy === ""}
              busyLabel="Deploying…"
            >
              Deploy agent
            </Button>
          </form>
        </>
      ) : null}
      {deployed ? (
        <>
          <dl className="facts">
            {health.agentId ? (
              <AgentName agentId={health.agentId} name={health.agentName} onRenamed={refreshHealth} />
            ) : null}
            <div>
              <dt>Status</dt>
              <dd data-testid="agent-status" aria-live="polite">
                <StatusBadge status={health.status}>
                  {STATUS_TEXT[health.status] ?? health.status}
                </StatusBadge>
                {health.statusReason && !SELF_EXPLAINING.has(health.status) ? (
                  <span className="muted"> {health.statusReason}</span>
                ) : null}
              </dd>
            </div>
            {version ? (
              <div>
                <dt>Runtime version</dt>
                <dd data-testid="agent-version">
                  <code>{version.version}</code>
                  {version.fallback ? (
                    <span className="muted">
                      {" "}
                      (from this site's configuration: the backend did not answer)
                    </span>
                  ) : null}
                </dd>
              </div>
            ) : null}
          </dl>
          <div className="actions">
            {controlsEnabled
              ? ACTIONS.map(({ op, label }) => (
                  <Button
                    key={op}
                    variant="secondary"
                    disabled={busy !== null || deploying || !allowed.includes(op)}
                    busy={busy === op}
                    busyLabel={`${label}…`}
                    onClick={() => act(op, label)}
                  >
                    {label}
                  </Button>
                ))
              : null}
            <ConfirmButton
              variant="secondary"
              question="Redeploy the agent? It is deployed again from scratch and unavailable meanwhile."
              confirmLabel="Redeploy now"
              onConfirm={() => action.run(() => deploy())}
              disabled={busy !== null || deploying}
              busy={busy === ""}
            >
              Redeploy agent
            </ConfirmButton>
          </div>
          {controlsEnabled && WHY_OFF[health.status] ? (
            <p className="hint" data-testid="agent-controls-hint">
              {WHY_OFF[health.status]}
            </p>
          ) : null}
          {controlsEnabled === false ? (
            <p className="hint">Runtime controls are turned off on this platform.</p>
          ) : null}
        </>
      ) : null}
      {job ? (
        <p role="status" data-testid="deploy-job">
          Deploy job{" "}
          <Link href={`/dashboard/jobs/${encodeURIComponent(job.id)}`}>
            <code>{job.id}</code>
          </Link>
          : {deployText(job)}
        </p>
      ) : null}
      <ActionStatus action={action} tone="info" />
      {[jobError, healthError].filter(Boolean).map((message) => (
        <Alert key={message} message={message} />
      ))}
    </Card>
  );
}
