"use client";

import { messageOf, usePolling, useResource } from "@/components/data";
import { Alert, Card, StatusBadge } from "@/components/ui";
import type { DashboardHealth, DashboardServiceName } from "@/lib/health/dashboard";

const NAMES: Record<DashboardServiceName, string> = {
  web: "Web",
  backend: "Backend",
  summarizer: "Summarizer",
  database: "Database",
};
const TONE = { up: "ok", degraded: "warn", down: "bad" } as const;

/** The platform's own services (`GET /api/health/dashboard`), re-read every 30 s while visible. */
export function PlatformCard() {
  const health = useResource<DashboardHealth>("/api/health/dashboard");
  usePolling(health.reload, 30_000);
  const h = health.data;
  return (
    <Card title="Platform" testId="platform-health" description="The services your agent depends on.">
      {h ? (
        <ul className="service-list">
          {(Object.keys(NAMES) as DashboardServiceName[]).map((name) => {
            const service = h.services[name];
            if (!service) return null;
            return (
              <li key={name}>
                <span>{NAMES[name]}</span>
                <StatusBadge status={service.status} tone={TONE[service.status]} />
              </li>
            );
          })}
        </ul>
      ) : health.error ? null : (
        <p className="muted">Loading…</p>
      )}
      <Alert message={health.error ? messageOf(health.error) : null} />
    </Card>
  );
}
