"use client";

import Link from "next/link";
import { useState } from "react";
import { api, messageOf } from "@/components/data";
import { Alert, Button, Card, Notice, StatusBadge } from "@/components/ui";
import { type AgentRuntime, type DeployJob, useDeployJob } from "./use-agent-runtime";

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

/** Live statuses: their reason ("/api/status: running true") tells the user nothing more. */
const UP = new Set(["running", "healthy"]);

function jobText(job: DeployJob): string {
  if (job.status === "completed") return "completed";
  if (job.status === "failed")
    return `failed after ${job.attempts} attempts${job.error ? `: ${job.error}` : ""}`;
  const attempt =
    job.attempts > 0
      ? ` (attempt ${job.attempts} of ${job.maxAttempts} failed${job.error ? `: ${job.error}` : ""})`
      : "";
  const step = job.status === "running" && job.progress ? `: ${job.progress}` : "";
  return `${job.status}${attempt}${step}`;
}

/** The user's agent: deploy it, see its live status and version, and start, stop, restart or repair it. */
export function AgentPanel({ runtime }: { runtime: AgentRuntime }) {
  const { health, healthError, refreshHealth, version, controlsEnabled } = runtime;
  const { job, setJob, error: jobError } = useDeployJob(() => void refreshHealth());
  const [busy, setBusy] = useState<Action | "deploy" | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");

  async function deploy() {
    setBusy("deploy");
    setError("");
    setNotice("");
    try {
      const result = await api<{ job: DeployJob; agentId: string }>("/api/provision", { json: {} });
      setJob(result.job);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
    }
  }

  async function act(op: Action, label: string) {
    setBusy(op);
    setError("");
    setNotice("");
    try {
      await api(`/api/runtime/${op}`, { method: "POST" });
      setNotice(`${label}: done.`);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
      await refreshHealth();
    }
  }

  const deployed = health !== null && health.status !== "no_agent";
  const deploying = job !== null && (job.status === "queued" || job.status === "running");

  return (
    <Card
      title="Deployment"
      testId="agent-panel"
      description="Your agent's live status and version; deploy it, or start, stop, restart or repair it."
      actions={
        health !== null ? (
          <Button
            variant={deployed ? "secondary" : "primary"}
            onClick={deploy}
            disabled={busy !== null || deploying}
            busy={busy === "deploy"}
            busyLabel="Deploying…"
          >
            {deployed ? "Redeploy agent" : "Deploy agent"}
          </Button>
        ) : null
      }
    >
      {health === null && !healthError ? (
        <p className="muted" aria-live="polite">
          Checking your agent…
        </p>
      ) : null}
      {health?.status === "no_agent" ? <p data-testid="agent-none">You have no running agent yet.</p> : null}
      {deployed ? (
        <>
          <dl className="facts">
            <div>
              <dt>Status</dt>
              <dd data-testid="agent-status" aria-live="polite">
                <StatusBadge status={health.status}>
                  {STATUS_TEXT[health.status] ?? health.status}
                </StatusBadge>
                {health.statusReason && !UP.has(health.status) ? (
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
          {controlsEnabled ? (
            <div className="actions">
              {ACTIONS.map(({ op, label }) => (
                <Button
                  key={op}
                  variant="secondary"
                  disabled={busy !== null}
                  busy={busy === op}
                  busyLabel={`${label}…`}
                  onClick={() => act(op, label)}
                >
                  {label}
                </Button>
              ))}
            </div>
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
          : {jobText(job)}
        </p>
      ) : null}
      <Notice>{notice}</Notice>
      {[error, jobError, healthError].filter(Boolean).map((message) => (
        <Alert key={message} message={message} />
      ))}
    </Card>
  );
}
