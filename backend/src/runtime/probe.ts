/**
 * The shared runtime probe: `/healthz`, `/readyz` and `/api/status` on the agent, in parallel (5 s, 4 s, 5 s).
 * `/api/status` (the wrapper's) is authoritative:
 * 1. `/api/status` 200: `configured` false → `setup`; `running` true or `state` `running` → `running`;
 *    `running` false or `state` `stopped` → `stopped` (each with `statusReason`); any other state falls back
 *    to the legacy probes.
 * 2. Otherwise: `/healthz` and `/readyz` 200 → `healthy`; `/healthz` 200 alone → `starting`; every probe
 *    failing → `unreachable`; `/healthz` failing while another probe answers → `unhealthy`.
 */

import { AgentCallError, type Clock, requestAgent, systemClock } from "@svc/common";

export type ProbeStatus =
  | "setup"
  | "running"
  | "stopped"
  | "healthy"
  | "starting"
  | "unhealthy"
  | "unreachable";

export interface ProbeCheck {
  ok: boolean;
  /** HTTP status when the agent answered. */
  status?: number;
  /** Why there was no answer (timeout, connection refused, …). */
  error?: string;
  durationMs: number;
}

export interface ProbeResult {
  status: ProbeStatus;
  /** Present when `/api/status` alone decided the status. */
  statusReason?: string;
  checks: { healthz: ProbeCheck; readyz: ProbeCheck; apiStatus: ProbeCheck };
  /** The `/api/status` body when it answered 200 with JSON. */
  runtime?: Record<string, unknown>;
  checkedAt: string;
}

export interface ProbeOptions {
  healthzTimeoutMs?: number;
  readyzTimeoutMs?: number;
  statusTimeoutMs?: number;
  /** Stamps `checkedAt` (default: the system clock). */
  clock?: Clock;
}

export const PROBE_TIMEOUTS = { healthzTimeoutMs: 5_000, readyzTimeoutMs: 4_000, statusTimeoutMs: 5_000 };

/** Statuses the watchdog and the operations treat as a live agent. */
export function isUp(status: ProbeStatus): boolean {
  return status === "running" || status === "healthy" || status === "setup";
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "dns error",
  EAI_AGAIN: "dns error",
};

function describeError(err: unknown): string {
  if (err instanceof AgentCallError) {
    if (err.reason === "timeout" || err.reason === "aborted") return "timeout";
    const code = err.socketCode;
    if (code) return SOCKET_ERRORS[code] ?? code;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

async function check(
  url: string,
  path: string,
  timeoutMs: number,
): Promise<{ check: ProbeCheck; body?: unknown }> {
  const started = performance.now();
  try {
    // Capped like every answer from an agent; a 200 JSON body that is not JSON counts as no body.
    const res = await requestAgent(url, { method: "GET", path, token: null, timeoutMs });
    let body: unknown;
    if (res.status === 200 && res.contentType.includes("json")) {
      try {
        body = JSON.parse(res.text) as unknown;
      } catch {
        body = undefined;
      }
    }
    return {
      check: {
        ok: res.status === 200,
        status: res.status,
        durationMs: Math.round(performance.now() - started),
      },
      body,
    };
  } catch (err) {
    return {
      check: { ok: false, error: describeError(err), durationMs: Math.round(performance.now() - started) },
    };
  }
}

/** Classifies what the three probes saw (pure; `probeRuntime` feeds it). */
export function classify(
  healthz: ProbeCheck,
  readyz: ProbeCheck,
  apiStatus: ProbeCheck,
  body: unknown,
): Pick<ProbeResult, "status" | "statusReason"> {
  if (apiStatus.status === 200 && body && typeof body === "object" && !Array.isArray(body)) {
    const runtime = body as Record<string, unknown>;
    if (runtime.configured === false)
      return { status: "setup", statusReason: "/api/status: configured false" };
    if (runtime.running === true) return { status: "running", statusReason: "/api/status: running true" };
    if (runtime.state === "running") return { status: "running", statusReason: "/api/status: state running" };
    if (runtime.running === false) return { status: "stopped", statusReason: "/api/status: running false" };
    if (runtime.state === "stopped") return { status: "stopped", statusReason: "/api/status: state stopped" };
  }
  if (healthz.ok && readyz.ok) return { status: "healthy" };
  if (healthz.ok) return { status: "starting" };
  if (healthz.status === undefined && readyz.status === undefined && apiStatus.status === undefined)
    return { status: "unreachable" };
  if (!healthz.ok && !readyz.ok && !apiStatus.ok) return { status: "unreachable" };
  return { status: "unhealthy" };
}

/** Probes the agent at `baseUrl` (its wrapper) and classifies it. */
export async function probeRuntime(baseUrl: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const [healthz, readyz, apiStatus] = await Promise.all([
    check(baseUrl, "/healthz", options.healthzTimeoutMs ?? PROBE_TIMEOUTS.healthzTimeoutMs),
    check(baseUrl, "/readyz", options.readyzTimeoutMs ?? PROBE_TIMEOUTS.readyzTimeoutMs),
    check(baseUrl, "/api/status", options.statusTimeoutMs ?? PROBE_TIMEOUTS.statusTimeoutMs),
  ]);
  const decided = classify(healthz.check, readyz.check, apiStatus.check, apiStatus.body);
  return {
    ...decided,
    checks: { healthz: healthz.check, readyz: readyz.check, apiStatus: apiStatus.check },
    ...(apiStatus.body && typeof apiStatus.body === "object"
      ? { runtime: apiStatus.body as Record<string, unknown> }
      : {}),
    checkedAt: (options.clock ?? systemClock).now().toISOString(),
  };
}
