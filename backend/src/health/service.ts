import type pg from "pg";

export interface BackendHealth {
  status: "ok" | "unhealthy";
  service: "backend";
  version: string;
  database: "ok" | "unreachable";
  uptimeSeconds: number;
  timestamp: string;
}

export const BACKEND_VERSION = "0.1.0";

/** Reports whether the backend can reach its database. */
export async function checkBackendHealth(pool: pg.Pool, now: Date = new Date()): Promise<BackendHealth> {
  const database = await pool.query("select 1").then(
    () => "ok" as const,
    () => "unreachable" as const,
  );
  return {
    status: database === "ok" ? "ok" : "unhealthy",
    service: "backend",
    version: BACKEND_VERSION,
    database,
    uptimeSeconds: Math.round(process.uptime()),
    timestamp: now.toISOString(),
  };
}
