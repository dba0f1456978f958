"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { api, messageOf, usePolling } from "@/components/data";
import type { PlatformJob } from "@/lib/platform-jobs/inputs";
import type { AgentHealthAnswer } from "@/lib/runtime/inputs";
import type { RuntimeVersionInfo } from "@/lib/runtime/runtime-version";

/** How often the dashboard re-reads the agent's health while the page is visible. */
export const HEALTH_POLL_MS = 10_000;
/** How often it re-reads a deploy job until it ends. */
export const JOB_POLL_MS = 2_000;

export type AgentHealth = AgentHealthAnswer;
export type RuntimeVersion = RuntimeVersionInfo;

/** A deploy (`provision_managed_runtime`) job as `/api/provision` and `/api/jobs/{id}` answer it. */
export type DeployJob = PlatformJob;

/** The agent's live health (polled every 10 s while visible), the runtime version and the controls switch. */
export function useAgentRuntime() {
  const [health, setHealth] = useState<AgentHealth | null>(null);
  const [healthError, setHealthError] = useState("");
  const [version, setVersion] = useState<RuntimeVersion | null>(null);
  const [controlsEnabled, setControlsEnabled] = useState<boolean | null>(null);

  const refreshHealth = useCallback(async () => {
    try {
      setHealth(await api<AgentHealth>("/api/runtime/health"));
      setHealthError("");
    } catch (err) {
      setHealthError(messageOf(err));
    }
  }, []);
  usePolling(refreshHealth, HEALTH_POLL_MS);

  useEffect(() => {
    api<RuntimeVersion>("/api/runtime-version").then(setVersion, () => setVersion(null));
    api<{ enabled: boolean }>("/api/runtime/controls").then(
      (c) => setControlsEnabled(c.enabled),
      () => setControlsEnabled(false),
    );
  }, []);

  return { health, healthError, refreshHealth, version, controlsEnabled };
}

export type AgentRuntime = ReturnType<typeof useAgentRuntime>;

/** A deploy job followed until it is completed or failed. */
export function useDeployJob(onDone: () => void) {
  const [job, setJob] = useState<DeployJob | null>(null);
  const [error, setError] = useState("");
  const done = job?.status === "completed" || job?.status === "failed";
  const onDoneRef = useRef(onDone);
  onDoneRef.current = onDone;

  const jobId = job?.id;
  const poll = useCallback(async () => {
    if (!jobId) return;
    try {
      const { job: next } = await api<{ job: DeployJob }>(`/api/jobs/${encodeURIComponent(jobId)}`);
      setJob(next);
      setError("");
      if (next.status === "completed" || next.status === "failed") onDoneRef.current();
    } catch (err) {
      setError(messageOf(err));
    }
  }, [jobId]);
  usePolling(poll, JOB_POLL_MS, { enabled: Boolean(jobId) && !done });

  return { job, setJob, error };
}
