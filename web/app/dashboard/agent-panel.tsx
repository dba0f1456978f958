"use client";

import { useState } from "react";
import { messageOf } from "@/components/api";
import { type DeployJob, runtimeApi, useAgentRuntime, useDeployJob } from "@/components/use-agent-runtime";

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
  return `${job.status}${attempt}`;
}

/** The user's agent: deploy it, see its live status and version, and start, stop, restart or repair it. */
export function AgentPanel() {
  const { health, healthError, refreshHealth, version, controlsEnabled } = useAgentRuntime();
  const { job, setJob, error: jobError } = useDeployJob(() => void refreshHealth());
  const [busy, setBusy] = useState<Action | "deploy" | null>(null);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");

  async function deploy() {
    setBusy("deploy");
    setError("");
    setNotice("");
    try {
      const result = await runtimeApi<{ job: DeployJob; agentId: string }>("/api/provision", { json: {} });
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
      await runtimeApi(`/api/runtime/${op}`, { method: "POST" });
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
    <section aria-labelledby="agent-heading" data-testid="agent-panel">
      <h2 id="agent-heading">Agent</h2>
      {health === null && !healthError ? <p aria-live="polite">Checking your agent…</p> : null}
      {health?.status === "no_agent" ? <p data-testid="agent-none">You have no running agent yet.</p> : null}
      {deployed ? (
        <>
          <p data-testid="agent-status" aria-live="polite">
            Status: <strong>{STATUS_TEXT[health.status] ?? health.status}</strong>
            {health.statusReason && !UP.has(health.status) ? ` (${health.statusReason})` : ""}
          </p>
          {version ? (
            <p data-testid="agent-version">
              Runtime version <code>{version.version}</code>
              {version.fallback ? " (from this site's configuration: the backend did not answer)" : ""}
            </p>
          ) : null}
          {controlsEnabled ? (
            <div className="alternatives">
              {ACTIONS.map(({ op, label }) => (
                <button
                  key={op}
                  type="button"
                  className="secondary"
                  disabled={busy !== null}
                  onClick={() => act(op, label)}
                >
                  {busy === op ? `${label}…` : label}
                </button>
              ))}
            </div>
          ) : null}
          {controlsEnabled === false ? (
            <p className="hint">Runtime controls are turned off on this platform.</p>
          ) : null}
        </>
      ) : null}
      {health !== null ? (
        <button type="button" onClick={deploy} disabled={busy !== null || deploying}>
          {busy === "deploy" ? "Deploying…" : deployed ? "Redeploy agent" : "Deploy agent"}
        </button>
      ) : null}
      {job ? (
        <p role="status" data-testid="deploy-job">
          Deploy job{" "}
          <a href={`/api/jobs/${encodeURIComponent(job.id)}`}>
            <code>{job.id}</code>
          </a>
          : {jobText(job)}
        </p>
      ) : null}
      {notice ? <p role="status">{notice}</p> : null}
      {[error, jobError, healthError].filter(Boolean).map((message) => (
        <p key={message} className="error" role="alert">
          {message}
        </p>
      ))}
    </section>
  );
}
