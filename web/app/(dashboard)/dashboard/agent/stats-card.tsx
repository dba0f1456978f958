"use client";

import { useEffect, useRef } from "react";
import { messageOf, useResource } from "@/components/data";
import { Alert, Button, Card } from "@/components/ui";
import type { InstanceStatsAnswer } from "@/lib/runtime/inputs";

const MIB = 1024 * 1024;

function bytes(value: number | null): string {
  if (value === null) return "not reported";
  return value >= 1024 * MIB ? `${(value / (1024 * MIB)).toFixed(2)} GiB` : `${(value / MIB).toFixed(1)} MiB`;
}

/**
 * The agent's CPU and memory as its hosting platform reports them (`GET /api/runtime/stats`), read again
 * whenever the agent's status changes; a stopped agent uses none, so none are shown (nor last known ones).
 */
export function StatsCard({ status }: { status: string }) {
  const stopped = status === "stopped";
  const stats = useResource<InstanceStatsAnswer>(stopped ? null : "/api/runtime/stats");
  const { reload } = stats;
  const s = stopped ? undefined : stats.data;
  // A new status (started, restarted…) is the reason to read the figures again; the first read is the resource's.
  const seen = useRef(status);
  useEffect(() => {
    if (seen.current === status) return;
    seen.current = status;
    void reload();
  }, [status, reload]);
  return (
    <Card
      title="Resources"
      testId="agent-stats"
      description="CPU and memory of the agent's service, as its hosting platform reports them."
      actions={
        stopped ? null : (
          <Button variant="secondary" size="sm" onClick={() => stats.reload()} aria-label="Refresh resources">
            Refresh
          </Button>
        )
      }
    >
      {stopped ? (
        <p className="muted" data-testid="agent-stats-stopped">
          The agent is stopped: it uses no CPU or memory.
        </p>
      ) : null}
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
      <Alert message={stats.error && !stopped ? messageOf(stats.error) : null} />
    </Card>
  );
}
