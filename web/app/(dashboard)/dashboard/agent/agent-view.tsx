"use client";

import { AgentPanel } from "./agent-panel";
import { GatewayCard } from "./gateway-card";
import { HeartbeatCard } from "./heartbeat-card";
import { LogsCard } from "./logs-card";
import { MaintenanceCard } from "./maintenance-card";
import { PlatformCard } from "./platform-card";
import { StatsCard } from "./stats-card";
import { useAgentRuntime } from "./use-agent-runtime";

/**
 * The Agent page: deployment and lifecycle first; once the agent exists, its resources, logs, maintenance,
 * heartbeat and gateway view; the platform's services at the side.
 */
export function AgentView({ accountName }: { accountName: string }) {
  const runtime = useAgentRuntime();
  const { health } = runtime;
  const agentId = health && health.status !== "no_agent" ? health.agentId : undefined;
  const status = health?.status ?? "";
  return (
    <div className="agent-layout">
      <div className="agent-main">
        <AgentPanel runtime={runtime} accountName={accountName} />
        {agentId ? (
          <>
            <div className="grid">
              <StatsCard status={status} />
              <HeartbeatCard agentId={agentId} />
            </div>
            <LogsCard />
            <GatewayCard status={status} />
            <MaintenanceCard controlsEnabled={runtime.controlsEnabled} onDone={runtime.refreshHealth} />
          </>
        ) : null}
      </div>
      <aside className="agent-side" aria-label="Platform status">
        <PlatformCard />
      </aside>
    </div>
  );
}
