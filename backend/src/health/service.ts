import { type Clock, systemClock } from "@svc/common";
import type pg from "pg";
import { HostingError, type HostingPlatform, type HostingProviderName } from "../hosting/types";

/** Whether new agents can be provisioned: the hosting platform's API answered its last ping. */
export interface ProvisioningStatus {
  enabled: boolean;
  /** Why provisioning is off (absent when enabled). */
  reason?: string;
}

export interface BackendHealth {
  status: "ok" | "unhealthy";
  service: "backend";
  version: string;
  database: "ok" | "unreachable";
  /** Always `render`: kept because older dashboards read it; see `hostingProvider`. */
  provider: "render";
  /** The configured hosting driver (HOSTING_PROVIDER); null when neither it nor a platform was given. */
  hostingProvider: HostingProviderName | null;
  provisioning: ProvisioningStatus;
  uptimeSeconds: number;
  timestamp: string;
}

export const BACKEND_VERSION = "0.1.0";

/** What `/health` needs of the hosting driver. */
export type HostingPing = Pick<HostingPlatform, "ping" | "provider">;
/** The driver, or a resolver that builds it (and may throw HostingError `not_configured`), as app.ts holds it. */
export type HostingPingSource = HostingPing | (() => HostingPing);

/** A ping result is reused this long, so `/health` stays cheap when polled by load balancers. */
export const PING_CACHE_MS = 30_000;
/** A hosting API that has not answered by then counts as unreachable. */
export const PING_TIMEOUT_MS = 5_000;
const MAX_REASON_CHARS = 200;

export interface ProvisioningCheckOptions {
  clock?: Clock;
  cacheMs?: number;
  timeoutMs?: number;
}

/**
 * Returns a function answering whether provisioning is available: the platform's `ping()` result, cached
 * for `cacheMs` (concurrent callers share one ping in flight). A ping that throws or exceeds `timeoutMs`
 * disables provisioning with the reason.
 */
export function createProvisioningCheck(
  platform: HostingPingSource | undefined,
  {
    clock = systemClock,
    cacheMs = PING_CACHE_MS,
    timeoutMs = PING_TIMEOUT_MS,
  }: ProvisioningCheckOptions = {},
): () => Promise<ProvisioningStatus> {
  let cached: { at: number; status: ProvisioningStatus } | undefined;
  let inFlight: Promise<ProvisioningStatus> | undefined;
  return async () => {
    if (!platform) return { enabled: false, reason: "no hosting platform configured" };
    if (cached && clock.now().getTime() - cached.at < cacheMs) return cached.status;
    inFlight ??= pingWithTimeout(platform, timeoutMs)
      .then((status) => {
        cached = { at: clock.now().getTime(), status };
        return status;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

async function pingWithTimeout(source: HostingPingSource, timeoutMs: number): Promise<ProvisioningStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`hosting platform did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    const platform = typeof source === "function" ? source() : source;
    await Promise.race([platform.ping(), timeout]);
    return { enabled: true };
  } catch (err) {
    return { enabled: false, reason: disabledReason(err) };
  } finally {
    clearTimeout(timer);
  }
}

function disabledReason(err: unknown): string {
  const message = err instanceof Error && err.message ? err.message : "hosting platform unreachable";
  const reason =
    err instanceof HostingError && err.reason === "not_configured"
      ? `hosting platform not configured: ${message}`
      : message;
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

export interface HealthDeps {
  pool: pg.Pool;
  hostingProvider: HostingProviderName | null;
  provisioning: () => Promise<ProvisioningStatus>;
}

/**
 * Reports whether the backend can reach its database (which decides the status) and whether provisioning
 * is available (which does not: an unreachable hosting API leaves the backend healthy).
 */
export async function checkBackendHealth(
  deps: HealthDeps,
  now: Date = systemClock.now(),
): Promise<BackendHealth> {
  const [database, provisioning] = await Promise.all([
    deps.pool.query("select 1").then(
      () => "ok" as const,
      () => "unreachable" as const,
    ),
    deps.provisioning(),
  ]);
  return {
    status: database === "ok" ? "ok" : "unhealthy",
    service: "backend",
    version: BACKEND_VERSION,
    database,
    provider: "render",
    hostingProvider: deps.hostingProvider,
    provisioning,
    uptimeSeconds: Math.round(process.uptime()),
    timestamp: now.toISOString(),
  };
}
