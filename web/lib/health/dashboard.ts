/**
 * Dashboard health (`GET /api/health/dashboard`): the web itself, the backend, the summarizer and the
 * database, probed in parallel. Each HTTP service may have several candidate URLs (the configured one, then
 * the local default); each candidate gets `timeoutMs` (6 s), and when none answers 2xx the primary is
 * tried once more with `retryTimeoutMs` (8 s). A service that stays down carries a normalized label.
 */
import { createOutboundClient } from "@svc/common";
import { sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { networkErrorLabel } from "./network-errors";
import { assessWebHealth, type HealthLevel, type HostSample, sampleHost } from "./service";

/** 6 s per candidate, 8 s for the retry. */
export const DASHBOARD_PROBE_TIMEOUT_MS = 6_000;
export const DASHBOARD_RETRY_TIMEOUT_MS = 8_000;
/** Where `npm start` runs the services when nothing else is configured. */
export const LOCAL_BACKEND_URL = "http://127.0.0.1:4000";
export const LOCAL_SUMMARIZER_URL = "http://127.0.0.1:4100";

export type DashboardServiceName = "web" | "backend" | "summarizer" | "database";

export interface ServiceHealth {
  /** `up`: answered 2xx; `degraded`: answered, but not 2xx; `down`: no answer (see `error`). */
  status: "up" | "degraded" | "down";
  /** Time of the probe that decided the status. */
  latencyMs: number;
  /** Why it is not up: a normalized network label, or `http <status>`. */
  error?: string;
  /** The HTTP status a degraded service answered. */
  httpStatus?: number;
  /** The web's own CPU and memory level (web only). */
  health?: HealthLevel;
}

export interface DashboardHealth {
  /** `ok` when every service is up. */
  status: "ok" | "degraded";
  services: Record<DashboardServiceName, ServiceHealth>;
  checkedAt: string;
}

export interface DashboardProbeOptions {
  timeoutMs?: number;
  retryTimeoutMs?: number;
}

export interface DashboardTargets {
  /** Candidate base URLs, primary first. */
  backend: string[];
  summarizer: string[];
}

/** Candidate URLs from configuration: the configured address first, then the local default. */
export function dashboardTargets(config: { BACKEND_URL: string; SUMMARIZER_URL?: string }): DashboardTargets {
  return {
    backend: candidates(config.BACKEND_URL, LOCAL_BACKEND_URL),
    summarizer: candidates(config.SUMMARIZER_URL, LOCAL_SUMMARIZER_URL),
  };
}

function candidates(...urls: (string | undefined)[]): string[] {
  const bases = urls.filter((u): u is string => Boolean(u)).map((u) => u.replace(/\/+$/, ""));
  return [...new Set(bases)];
}

type Attempt = { kind: "ok"; latencyMs: number } | { kind: "http"; status: number; latencyMs: number };

/** The services' `/health` endpoints: configured addresses, so no URL guard; a redirect counts as a status. */
const healthClient = createOutboundClient({ name: "the service", headers: { accept: "application/json" } });

/** One GET with a deadline; a network failure throws (labelled by the caller). */
async function attemptHttp(url: string, timeoutMs: number): Promise<Attempt> {
  const started = performance.now();
  const res = await healthClient.open({ url, timeoutMs, returnRedirects: true });
  res.discard();
  const latencyMs = Math.round(performance.now() - started);
  return res.status >= 200 && res.status <= 299
    ? { kind: "ok", latencyMs }
    : { kind: "http", status: res.status, latencyMs };
}

/** Runs `attempt` over the candidates, then retries the primary; the decisive result becomes the health. */
async function probeWithRetry(
  count: number,
  attempt: (index: number, timeoutMs: number) => Promise<Attempt>,
  {
    timeoutMs = DASHBOARD_PROBE_TIMEOUT_MS,
    retryTimeoutMs = DASHBOARD_RETRY_TIMEOUT_MS,
  }: DashboardProbeOptions,
): Promise<ServiceHealth> {
  for (let i = 0; i < count; i++) {
    const result = await attempt(i, timeoutMs).catch(() => undefined);
    if (result?.kind === "ok") return { status: "up", latencyMs: result.latencyMs };
  }
  const started = performance.now();
  try {
    const result = await attempt(0, retryTimeoutMs);
    if (result.kind === "ok") return { status: "up", latencyMs: result.latencyMs };
    return {
      status: "degraded",
      latencyMs: result.latencyMs,
      error: `http ${result.status}`,
      httpStatus: result.status,
    };
  } catch (err) {
    return {
      status: "down",
      latencyMs: Math.round(performance.now() - started),
      error: networkErrorLabel(err, retryTimeoutMs),
    };
  }
}

/** Probes `<candidate>/health` of an HTTP service. */
export function probeHttpService(
  bases: string[],
  options: DashboardProbeOptions = {},
): Promise<ServiceHealth> {
  if (bases.length === 0) return Promise.resolve({ status: "down", latencyMs: 0, error: "unreachable" });
  return probeWithRetry(
    bases.length,
    (i, timeoutMs) => attemptHttp(`${bases[i]}/health`, timeoutMs),
    options,
  );
}

/** Probes the database with `select 1` under the same deadlines. */
export function probeDatabase(
  db: WebContext["db"],
  options: DashboardProbeOptions = {},
): Promise<ServiceHealth> {
  return probeWithRetry(
    1,
    async (_i, timeoutMs) => {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error("timed out"), { name: "TimeoutError" })),
          timeoutMs,
        );
      });
      try {
        await Promise.race([db.execute(sql`select 1`), deadline]);
      } finally {
        clearTimeout(timer);
      }
      return { kind: "ok", latencyMs: Math.round(performance.now() - started) };
    },
    options,
  );
}

/** The web itself: it answers (this code runs), at the CPU and memory level of `GET /api/health`. */
export function probeWeb(sample: HostSample = sampleHost()): ServiceHealth {
  return { status: "up", latencyMs: 0, health: assessWebHealth(sample).health };
}

export async function checkDashboardHealth(
  ctx: Pick<WebContext, "db" | "config" | "clock">,
  options: DashboardProbeOptions & { targets?: DashboardTargets } = {},
): Promise<DashboardHealth> {
  const targets = options.targets ?? dashboardTargets(ctx.config);
  const [backend, summarizer, database] = await Promise.all([
    probeHttpService(targets.backend, options),
    probeHttpService(targets.summarizer, options),
    probeDatabase(ctx.db, options),
  ]);
  const services = { web: probeWeb(), backend, summarizer, database };
  return {
    status: Object.values(services).every((s) => s.status === "up") ? "ok" : "degraded",
    services,
    checkedAt: ctx.clock.now().toISOString(),
  };
}
