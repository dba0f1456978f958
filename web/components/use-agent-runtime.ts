"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, messageOf } from "./api";

/** How often the dashboard re-reads the agent's health while the page is visible. */
export const HEALTH_POLL_MS = 10_000;
/** How often it re-reads a deploy job until it ends. */
export const JOB_POLL_MS = 2_000;

/**
 * Calls a web API path and reads errors of both shapes the API uses: `{error: message, code}` (most web
 * routes) and `{error: code, message}` (the runtime routes, which relay the backend's answers).
 */
export async function runtimeApi<T>(
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: init.json === undefined ? {} : { "content-type": "application/json" },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    credentials: "same-origin",
    cache: "no-store",
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const message = typeof body.message === "string" ? body.message : body.error;
    const code = typeof body.code === "string" ? body.code : body.error;
    throw new ApiError(res.status, code ?? "error", message ?? `request failed (${res.status})`);
  }
  return body as T;
}

/** What `GET /api/runtime/health` says: `no_agent`, or the shared probe's classification. */
export interface AgentHealth {
  status: string;
  statusReason?: string;
  agentId?: string;
  checkedAt?: string;
}

export interface RuntimeVersion {
  version: string;
  image: string | null;
  fallback: boolean;
  deployedAt: string;
}

export interface DeployJob {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  attempts: number;
  maxAttempts: number;
  error: string | null;
}

/** Runs `tick` now and every `ms` while the page is visible; again at once when it becomes visible. */
function useVisiblePolling(tick: () => void, ms: number, enabled = true) {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer || document.visibilityState !== "visible") return;
      latest.current();
      timer = setInterval(() => latest.current(), ms);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => (document.visibilityState === "visible" ? start() : stop());
    start();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [ms, enabled]);
}

/** The agent's live health (polled every 10 s while visible), the runtime version and the controls switch. */
export function useAgentRuntime() {
  const [health, setHealth] = useState<AgentHealth | null>(null);
  const [healthError, setHealthError] = useState("");
  const [version, setVersion] = useState<RuntimeVersion | null>(null);
  const [controlsEnabled, setControlsEnabled] = useState<boolean | null>(null);

  const refreshHealth = useCallback(async () => {
    try {
      setHealth(await runtimeApi<AgentHealth>("/api/runtime/health"));
      setHealthError("");
    } catch (err) {
      setHealthError(messageOf(err));
    }
  }, []);
  useVisiblePolling(() => void refreshHealth(), HEALTH_POLL_MS);

  useEffect(() => {
    runtimeApi<RuntimeVersion>("/api/runtime-version").then(setVersion, () => setVersion(null));
    runtimeApi<{ enabled: boolean }>("/api/runtime/controls").then(
      (c) => setControlsEnabled(c.enabled),
      () => setControlsEnabled(false),
    );
  }, []);

  return { health, healthError, refreshHealth, version, controlsEnabled };
}

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
      const { job: next } = await runtimeApi<{ job: DeployJob }>(`/api/jobs/${encodeURIComponent(jobId)}`);
      setJob(next);
      setError("");
      if (next.status === "completed" || next.status === "failed") onDoneRef.current();
    } catch (err) {
      setError(messageOf(err));
    }
  }, [jobId]);
  useVisiblePolling(() => void poll(), JOB_POLL_MS, Boolean(jobId) && !done);

  return { job, setJob, error };
}
