"use client";

import { messageOf, useResource } from "@/components/data";
import { Alert, Button, Card } from "@/components/ui";
import type { InstanceStatsAnswer } from "@/lib/runtime/schema";

const MIB = 1024 * 1024;

function bytes(value: number | null): string {
  if (value === null) return "not reported";
  return value >= 1024 * MIB ? `${(value / (1024 * MIB)).toFixed(2)} GiB` : `${(value / MIB).toFixed(1)} MiB`;
}

/** The agent's CPU and memory as its hosting platform reports them (`GET /api/runtime/stats`). */
export function StatsCard() {
  const stats = useResource<InstanceStatsAnswer>("/api/runtime/stats");
  const s = stats.data;
  return (
    <Card
      title="Resources"
      testId="agent-stats"
      description="CPU and memory of the agent's service, as its hosting platform reports them."
      actions={
        <Button variant="secondary" size="sm" onClick={() => stats.reload()} aria-label="Refresh resources">
          Refresh
        </Button>
      }
    >
      {stats.loading ? <p className="muted">Loading…</p> : null}
      {s ? (
        <dl className="facts">
          <div>
            <dt>CPU</dt>
            <dd data-testid="agent-cpu">
              {s.cpuPercent === null ? "not reported" : `${s.cpuPercent.toFixed(1)} %`}
            </dd>
          </div>
          <div>
            <dt>Memory</dt>
            <dd data-testid="agent-memory">
              {bytes(s.memoryBytes)}
              {s.memoryLimitBytes !== null ? (
                <span className="muted"> of {bytes(s.memoryLimitBytes)}</span>
              ) : null}
            </dd>
          </div>
        </dl>
      ) : null}
      <Alert message={stats.error ? messageOf(stats.error) : null} />
    </Card>
  );
}
