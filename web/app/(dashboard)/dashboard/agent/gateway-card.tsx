"use client";

import { type Json, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, DataTable, EmptyState, formatDate, StatusBadge } from "@/components/ui";
import type { GatewayStatus } from "@/lib/health/gateway-status";
import { describeInterval } from "@/lib/scheduled-tasks/cron-hint";

const when = (at: string | null) => formatDate(at);

function every(ms: number | null, kind: string): string {
  return ms === null ? kind : describeInterval(ms);
}

/**
 * The agent's gateway as it reports itself (`GET /api/gateway/status`): health, sessions, cron jobs. A
 * stopped agent's gateway does not run: nothing is asked, and the card says so.
 */
export function GatewayCard({ status: agentStatus }: { status: string }) {
  const stopped = agentStatus === "stopped";
  const status = useResource<Json<GatewayStatus>>(stopped ? null : "/api/gateway/status");
  const s = stopped ? undefined : status.data;
  return (
    <Card
      title="Gateway"
      testId="agent-gateway"
      description="The agent's own view: its conversations (sessions) and scheduled jobs."
      actions={
        stopped ? null : (
          <Button
            variant="secondary"
            size="sm"
            onClick={() => status.reload()}
            aria-label="Refresh gateway status"
          >
            Refresh
          </Button>
        )
      }
    >
      {stopped ? <p className="muted">The agent is stopped: its gateway is not running.</p> : null}
      {status.loading ? <p className="muted">Loading…</p> : null}
      {s ? (
        <>
          <p data-testid="gateway-health">
            <StatusBadge status={s.health} />
            {s.healthDetail.error ? <span className="muted"> {s.healthDetail.error}</span> : null}
          </p>
          <h3 className="subheading">
            Sessions{" "}
            <span className="muted">
              ({s.sessions.active} active of {s.sessions.total})
            </span>
          </h3>
          <DataTable
            caption="Sessions of the agent"
            captionHidden
            testId="gateway-sessions"
            rows={s.sessions.list}
            rowKey={(r) => r.sessionKey}
            empty={<EmptyState title="No sessions">Conversations with the agent appear here.</EmptyState>}
            columns={[
              { header: "Session", cell: (r) => <code>{r.sessionKey}</code> },
              { header: "Status", cell: (r) => <StatusBadge status={r.status} /> },
              { header: "Messages", align: "end", cell: (r) => r.messageCount },
              { header: "Last activity", hideOnNarrow: true, cell: (r) => when(r.lastActivity) },
            ]}
          />
          <h3 className="subheading">
            Cron jobs{" "}
            <span className="muted">
              ({s.cron.enabled} enabled of {s.cron.total})
            </span>
          </h3>
          <DataTable
            caption="Cron jobs of the agent"
            captionHidden
            testId="gateway-cron"
            rows={s.cron.jobs}
            rowKey={(r) => r.id}
            empty={
              <EmptyState title="No cron jobs">The heartbeat and scheduled tasks appear here.</EmptyState>
            }
            columns={[
              { header: "Name", cell: (r) => <strong>{r.name}</strong> },
              {
                header: "Enabled",
                cell: (r) => <StatusBadge status={r.enabled ? "enabled" : "disabled"} />,
              },
              { header: "Schedule", cell: (r) => every(r.schedule.everyMs, r.schedule.kind) },
              { header: "Next run", hideOnNarrow: true, cell: (r) => when(r.nextRun) },
            ]}
          />
        </>
      ) : null}
      <Alert message={status.error && !stopped ? messageOf(status.error) : null} />
    </Card>
  );
}
